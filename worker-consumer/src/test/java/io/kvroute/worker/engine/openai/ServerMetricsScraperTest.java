package io.kvroute.worker.engine.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvroute.worker.engine.EngineStats;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ServerMetricsScraperTest {
    private ReplayServer server;
    private OpenAiCompatibleEngine engine;

    @AfterEach
    void tearDown() {
        if (engine != null) {
            engine.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private void start(ReplayServer.Reply metrics) {
        start(metrics, ReplayServer.endless());
    }

    private void start(ReplayServer.Reply metrics, ReplayServer.Reply slots) {
        server = ReplayServer.start((path, body) -> path.equals("/metrics") ? metrics
                : path.equals("/slots") ? slots : ReplayServer.endless());
        engine = new OpenAiCompatibleEngine(new OpenAiSettings(server.uri(), "m", null, 8, 30_000, 2_000, 50, 5_000),
                java.time.Clock.systemUTC()::millis, "scrape-test");
    }

    @Test
    void shouldRefuseAMetricsPageLargerThanTheBoundAndReportDegraded() {
        start(ReplayServer.endlessLine("text/plain; version=0.0.4", "vllm:num_requests_running{model_name=\"m\"} 1\n# "));

        await().atMost(Duration.ofSeconds(20)).until(() -> engine.scraper().lastError() != null);

        assertThat(engine.scraper().failing()).isTrue();
        assertThat(engine.scraper().lastError()).contains("larger than " + ServerMetricsScraper.MAX_PAGE_BYTES + " bytes");
        assertThat(engine.isDegraded()).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> server.disconnects() >= 1);
    }

    @Test
    void shouldCombineTheServersLoadWithTheEnginesOwnQueue() {
        start(ReplayServer.page("vllm-0.11-metrics.txt"));
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.scraper().latest() != null);

        EngineStats stats = engine.snapshot();
        assertThat(stats.runningRequests()).isEqualTo(7);
        assertThat(stats.waitingRequests()).isEqualTo(3);
        assertThat(engine.waitingRequests()).isEqualTo(3);
        assertThat(stats.kvBlocksTotal()).isEqualTo(27_153);
        assertThat(stats.kvUsage()).isCloseTo(0.4213, org.assertj.core.data.Offset.offset(1e-4));
        assertThat(stats.kvBlockTokens()).isEqualTo(16);
        assertThat(stats.prefixCacheHitRate()).isEqualTo(0.75);
        assertThat(stats.maxRunningRequests()).isEqualTo(8);
        assertThat(engine.isDegraded()).isFalse();
    }

    @Test
    void shouldScaleAUsageShareWhenTheServerDoesNotTellItsCapacity() {
        start(ReplayServer.page("llamacpp-b4500-metrics.txt"));
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.scraper().latest() != null);

        EngineStats stats = engine.snapshot();
        assertThat(stats.kvBlocksTotal()).isEqualTo(OpenAiCompatibleEngine.KV_USAGE_SCALE);
        assertThat(stats.kvUsage()).isEqualTo(0.25);
        assertThat(stats.runningRequests()).isEqualTo(2);
        assertThat(stats.waitingRequests()).isEqualTo(1);
    }

    @Test
    void shouldTakeLlamaCppKvUseFromItsSlotsWhenItsMetricsTellNone() {
        start(ReplayServer.page("llamacpp-b6500-metrics.txt"), new ReplayServer.Reply(200, Map.of("Content-Type", "application/json"),
                ReplayServer.recording("llamacpp-b6500-slots.json"), ReplayServer.Mode.REPLAY));
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.scraper().latest() != null);

        EngineStats stats = engine.snapshot();
        assertThat(stats.kvReported()).isTrue();
        assertThat(stats.kvBlockTokens()).isEqualTo(1);
        assertThat(stats.kvBlocksTotal()).as("four slots of 4,096 tokens").isEqualTo(16_384);
        assertThat(stats.kvBlocksUsed()).as("the two processing slots' tokens; the idle slot's are reusable").isEqualTo(1_500 + 512);
        assertThat(stats.runningRequests()).isEqualTo(2);
        assertThat(engine.isDegraded()).isFalse();
    }

    @Test
    void shouldReportKvUseAsUnknownNotEmptyWhenLlamaCppHasItsSlotsPageDisabled() {
        byte[] notSupported = ("{\"error\":{\"code\":501,\"message\":\"This server does not support slots endpoint. Start it with "
                + "`--slots`\",\"type\":\"not_supported_error\"}}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        start(ReplayServer.page("llamacpp-b6500-metrics.txt"), new ReplayServer.Reply(501, Map.of(), notSupported, ReplayServer.Mode.REPLAY));
        await().atMost(Duration.ofSeconds(10)).until(() -> server.received().stream().filter(r -> r.path().equals("/metrics")).count() >= 3);

        EngineStats stats = engine.snapshot();
        assertThat(stats.kvReported()).isFalse();
        assertThat(stats.kvBlocksTotal()).isZero();
        assertThat(stats.runningRequests()).isEqualTo(2);
        assertThat(engine.isDegraded()).as("the metrics were read").isFalse();
        assertThat(server.received().stream().filter(r -> r.path().equals("/slots")).count()).as("asked once").isEqualTo(1);
    }

    @Test
    void shouldMarkTheEngineDegradedWhenTheMetricsCannotBeRead() {
        start(ReplayServer.error(500, "error-500.txt", Map.of()));
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.scraper().failing());

        assertThat(engine.isDegraded()).isTrue();
        assertThat(engine.scraper().lastError()).contains("500");
        assertThat(engine.unreachable()).as("what the worker's readiness probe says").startsWith("cannot read the server's metrics: ")
                .contains("500");
    }

    @Test
    void shouldMarkTheEngineDegradedWhenThePageDoesNotParseAndRecoverAfterwards() {
        start(new ReplayServer.Reply(200, Map.of(), "<html>not metrics</html>".getBytes(), ReplayServer.Mode.REPLAY));
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.isDegraded());

        server.route((path, body) -> ReplayServer.page("sglang-0.4-metrics.txt"));

        await().atMost(Duration.ofSeconds(10)).until(() -> !engine.isDegraded());
        assertThat(engine.unreachable()).isNull();
        assertThat(engine.snapshot().runningRequests()).isEqualTo(12);
    }
}
