package io.kvroute.router.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.schemas.topics.DecisionComponents;
import io.kvroute.schemas.topics.RunAttempt;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.RoutingDecision;
import io.kvroute.schemas.v1.TerminalResult;
import io.kvroute.schemas.v1.WorkerTelemetry;
import io.micrometer.core.instrument.Gauge;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live router learns its workers' pool's engine speed from the timing their results carry, starting from no
 * engine profile, and shows what it learnt in its decision records and metrics.
 */
class EngineSpeedTopologyTest {
    private static final String POOL = "llama-8b-test";
    /** The pool's engine: 50 ms a step, 0.1 ms per prefilled token, nothing else. */
    private static final double STEP_MS = 50;
    private static final double MS_PER_TOKEN = 0.1;

    @TempDir
    Path stateDir;

    private TopologyHarness harness;

    @BeforeEach
    void startDriver() {
        harness = new TopologyHarness(stateDir, Map.of());
    }

    @AfterEach
    void closeDriver() {
        harness.close();
    }

    private WorkerTelemetry.Builder worker() {
        return Records.telemetry("east-1", "us-east", List.of(0), harness.now()).setPool(POOL);
    }

    private ResponseEvent timed(String id, int promptTokens, int completionTokens) {
        ResponseEvent completed = harness.completed(id, RunAttempt.of(1, 1), promptTokens, completionTokens);
        TerminalResult terminal = TerminalResult.newBuilder(completed.getTerminal())
                .setWorkerId("east-1")
                .setTtftMs(Math.round(STEP_MS + MS_PER_TOKEN * promptTokens))
                .setDecodeMs(Math.round(STEP_MS * (completionTokens - 1)))
                .setQueuedAheadTokens(0L)
                .setPromptTokensDuringDecode(0L)
                .build();
        return ResponseEvent.newBuilder(completed).setTerminal(terminal).build();
    }

    private static Map<String, Double> chosen(RoutingDecision decision) {
        return DecisionComponents.of(decision, decision.getTopCandidates().get(0));
    }

    @Test
    void shouldLearnThePoolsSpeedFromResultsAndShowItInDecisionsAndMetrics() {
        harness.report(worker());
        harness.send(Records.request("req-0", harness.now()).build());
        Map<String, Double> before = chosen(harness.decisions.readValue());

        for (int i = 1; i <= 60; i++) {
            harness.send(Records.request("req-" + i, harness.now()).build());
            harness.decisions.readValue();
            harness.responsesIn.pipeInput("req-" + i, timed("req-" + i, 500 + 100 * i, 20));
            harness.advance(100);
            harness.report(worker());
        }
        harness.send(Records.request("req-last", harness.now()).build());
        Map<String, Double> after = chosen(harness.decisions.readValue());

        assertThat(before.get("engine_ms_per_1k_tokens")).as("from none: the configured prefill rate, 25k tokens/s").isEqualTo(40.0);
        assertThat(after.get("engine_ms_per_1k_tokens")).as("learnt").isCloseTo(1_000 * MS_PER_TOKEN, within(10.0));
        assertThat(after.get("engine_step_ms")).isCloseTo(STEP_MS, within(5.0));
        Gauge perToken = harness.metrics.registry().find(RouterMetrics.ENGINE_COEFFICIENT)
                .tags(RouterMetrics.TAG_POOL, POOL, RouterMetrics.TAG_COEFFICIENT, "prefill_ms_per_token").gauge();
        assertThat(perToken).isNotNull();
        assertThat(perToken.value()).isCloseTo(MS_PER_TOKEN, within(0.01));
        assertThat(harness.metrics.registry().find(RouterMetrics.ENGINE_RUNS).tags(RouterMetrics.TAG_POOL, POOL).gauge().value())
                .isEqualTo(60.0);
    }
}
