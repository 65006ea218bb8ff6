package io.kvroute.worker.engine.openai;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.worker.engine.openai.internal.PrometheusText;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ServerMetricsTest {

    private static ServerMetrics map(String recording, ServerMetrics previous) {
        return ServerMetrics.from(PrometheusText.parse(new String(ReplayServer.recording(recording), StandardCharsets.UTF_8)), previous);
    }

    @Test
    void shouldMapVllmCurrentNames() {
        ServerMetrics m = map("vllm-0.11-metrics.txt", null);
        assertThat(m.family()).isEqualTo("vllm");
        assertThat(m.kvUsage()).isEqualTo(0.4213);
        assertThat(m.running()).isEqualTo(7);
        assertThat(m.waiting()).isEqualTo(3);
        assertThat(m.prefixHitRate()).isEqualTo(0.75);
        assertThat(m.kvBlocksTotal()).isEqualTo(27_153L);
        assertThat(m.kvBlockTokens()).isEqualTo(16);
    }

    @Test
    void shouldFallBackToTheOlderVllmNames() {
        ServerMetrics m = map("vllm-0.9-metrics.txt", null);
        assertThat(m.family()).isEqualTo("vllm");
        assertThat(m.kvUsage()).isEqualTo(0.4213);
        assertThat(m.running()).isEqualTo(7);
        assertThat(m.waiting()).isEqualTo(3);
        assertThat(m.prefixHitRate()).isEqualTo(0.75);
    }

    @Test
    void shouldRateVllmPrefixHitsOverTheLastInterval() {
        ServerMetrics before = new ServerMetrics("vllm", 0.1, 1, 0, 0.9, null, null, 100_000.0, 90_000.0);
        assertThat(map("vllm-0.11-metrics.txt", before).prefixHitRate()).isEqualTo(0.6);
        ServerMetrics idle = new ServerMetrics("vllm", 0.1, 1, 0, 0.33, null, null, 200_000.0, 150_000.0);
        assertThat(map("vllm-0.11-metrics.txt", idle).prefixHitRate()).isEqualTo(0.33);
    }

    @Test
    void shouldMapSglang() {
        ServerMetrics m = map("sglang-0.4-metrics.txt", null);
        assertThat(m.family()).isEqualTo("sglang");
        assertThat(m.kvUsage()).isEqualTo(0.37);
        assertThat(m.running()).isEqualTo(12);
        assertThat(m.waiting()).isEqualTo(4);
        assertThat(m.prefixHitRate()).isEqualTo(0.62);
        assertThat(m.kvBlocksTotal()).isEqualTo(476_023L);
        assertThat(m.kvBlockTokens()).isEqualTo(1);
    }

    @Test
    void shouldMapLlamaCpp() {
        ServerMetrics m = map("llamacpp-b4500-metrics.txt", null);
        assertThat(m.family()).isEqualTo("llamacpp");
        assertThat(m.running()).isEqualTo(2);
        assertThat(m.waiting()).isEqualTo(1);
        assertThat(m.kvUsage()).isEqualTo(0.25);
        assertThat(m.prefixHitRate()).isNull();
    }

    @Test
    void shouldReportNothingForAnUnknownServer() {
        ServerMetrics m = ServerMetrics.from(PrometheusText.parse("process_cpu_seconds_total 12.5\n"), null);
        assertThat(m.family()).isEqualTo("unknown");
        assertThat(m.running()).isNull();
        assertThat(m.kvUsage()).isNull();
    }
}
