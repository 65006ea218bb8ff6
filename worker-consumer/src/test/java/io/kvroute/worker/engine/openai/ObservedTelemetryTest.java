package io.kvroute.worker.engine.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvroute.worker.engine.EnginePrompt;
import io.kvroute.worker.engine.EngineRequest;
import io.kvroute.worker.engine.EngineStats;
import io.kvroute.worker.engine.InferenceEngine;
import io.kvroute.worker.engine.ObservedLoad;
import io.kvroute.worker.engine.ObservingEngine;
import io.kvroute.worker.engine.sim.CostModel;
import io.kvroute.worker.engine.sim.EngineLimits;
import io.kvroute.worker.engine.sim.SimulatedGpuEngine;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The simulated GPU and an OpenAI-compatible server are observed by one path: what the worker
 * reports of either is the server's gauges and its own record of what it sent, nothing more.
 */
class ObservedTelemetryTest {
    private static final LongSupplier CLOCK = System::currentTimeMillis;
    private static final Duration WAIT = Duration.ofSeconds(10);

    private ReplayServer server;
    private InferenceEngine engine;

    @AfterEach
    void close() {
        if (engine != null) {
            engine.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static EngineRequest request(String id, int promptTokens) {
        return new EngineRequest(id, 1, promptTokens, 16, new long[0], 64, CLOCK.getAsLong(),
                new EnginePrompt("llama-3.1-8b", "The capital of France is", null, 0.2, 0.9, 7L, List.of()));
    }

    private InferenceEngine openAi(ReplayServer.Reply reply) {
        server = ReplayServer.start((path, body) -> path.endsWith("/metrics")
                ? ReplayServer.page("vllm-0.9-metrics.txt") : reply);
        return new ObservingEngine(new OpenAiCompatibleEngine(new OpenAiSettings(server.uri(), "served-model", null, 4, 10_000,
                2_000, 50, 5_000), CLOCK, "test"), CLOCK);
    }

    private static InferenceEngine simulated(long networkDelayMs) {
        return new ObservingEngine(new SimulatedGpuEngine(CostModel.llama8bH100(), EngineLimits.defaults(), networkDelayMs, CLOCK,
                "test"), CLOCK);
    }

    @Test
    void shouldReportOnlyWhatAServerExposesAndTheWorkerSentForBothEngines() {
        for (InferenceEngine observed : List.of(simulated(60_000), openAi(ReplayServer.stall()))) {
            engine = observed;
            engine.submit(request("r-1", 1_200), new RecordingListener());
            engine.submit(request("r-2", 800), new RecordingListener());

            await().atMost(WAIT).untilAsserted(() -> {
                EngineStats stats = engine.snapshot();
                assertThat(stats.observed()).isEqualTo(new ObservedLoad(2_000, 2, 0, 0, 0.0, 0.0));
                // nothing only a view inside the engine could tell
                assertThat(stats.runningPrefill()).isZero();
                assertThat(stats.queuedPrefillTokens()).isZero();
                assertThat(stats.queuedPrefillAttention()).isZero();
                assertThat(stats.hostKvBlocksTotal()).isZero();
            });
            engine.close();
            engine = null;
        }
    }

    @Test
    void shouldTimeEachFinishedRunAlikeForBothEngines() {
        for (InferenceEngine observed : List.of(simulated(0), openAi(ReplayServer.stream("vllm-0.9-completions-stream.txt")))) {
            engine = observed;
            RecordingListener first = new RecordingListener();
            engine.submit(request("r-1", 300), first);
            await().atMost(WAIT).until(first::ended);

            assertThat(first.usage.timing().ttftMs()).isNotNegative();
            assertThat(first.usage.timing().decodeMs()).isNotNegative();
            assertThat(first.usage.timing().queuedAheadTokens()).isZero();
            EngineStats stats = engine.snapshot();
            assertThat(stats.observed().owedPrefillTokens()).isZero();
            assertThat(stats.observed().decodingRequests()).isZero();
            engine.close();
            engine = null;
        }
    }
}
