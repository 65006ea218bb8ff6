package io.kvroute.router.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.topics.DecisionComponents;
import io.kvroute.schemas.topics.RunAttempt;
import io.kvroute.schemas.v1.RoutingDecision;
import io.kvroute.schemas.v1.WorkerTelemetry;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Completed results tell the router how long answers are, and so how soon a worker with every
 * batch slot taken frees one: it finishes a sequence every (answer length / tokens it generates per second).
 */
class AnswerLengthTopologyTest {
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

    /** Both slots taken, 100 output tokens a second. */
    private WorkerTelemetry.Builder full() {
        return Records.telemetry("east-1", "us-east", List.of(0), harness.now())
                .setMaxRunningRequests(2).setRunningRequests(2).setRunningDecode(2).setTokensPerSecond(100);
    }

    private static double batchMs(RoutingDecision decision) {
        return DecisionComponents.of(decision, decision.getTopCandidates().get(0)).get("batch_ms");
    }

    @Test
    void shouldWaitForABatchSlotAsLongAsTheAnswersOfCompletedRequestsTake() {
        harness.report(full());
        harness.send(Records.request("req-1", harness.now()).build());
        RoutingDecision before = harness.decisions.readValue();

        harness.responsesIn.pipeInput("req-1", harness.completed("req-1", RunAttempt.of(1, 1), 150, 400));
        harness.advance(1_000);
        harness.report(full());
        harness.send(Records.request("req-2", harness.now()).build());
        RoutingDecision after = harness.decisions.readValue();

        assertThat(before.getWorkerId()).isEqualTo("east-1");
        assertThat(batchMs(before)).as("no answer yet: one slot's default wait").isEqualTo(25.0);
        assertThat(batchMs(after)).as("400-token answers at 100 tokens a second: a slot every 4 s").isEqualTo(4_000.0);
    }
}
