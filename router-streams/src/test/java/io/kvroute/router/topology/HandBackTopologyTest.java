package io.kvroute.router.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.schemas.topics.RunAttempt;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.RoutingDecision;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.TestOutputTopic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A worker hands back a run its server refused for a rate limit: the router places it elsewhere, or answers it. */
class HandBackTopologyTest {
    private static final String REASON = Records.HAND_BACK_REASON;

    @TempDir
    Path stateDir;

    private TopologyHarness harness;
    private TestOutputTopic<String, DispatchedRequest> dispatchEast;
    private TestOutputTopic<String, DispatchedRequest> dispatchWest;

    @BeforeEach
    void startDriver() {
        harness = new TopologyHarness(stateDir, Map.of());
        dispatchEast = harness.dispatched("us-east");
        dispatchWest = harness.dispatched("eu-west");
    }

    @AfterEach
    void closeDriver() {
        harness.close();
    }

    /** A worker's hand-back of {@code dispatchAttempt}'s run (group generation 3). */
    private ResponseEvent handBack(String id, int dispatchAttempt) {
        return Records.handBack(id, RunAttempt.of(dispatchAttempt, 3), harness.now());
    }

    private DispatchedRequest dispatchToEast(String id) {
        harness.report(Records.telemetry("east-1", "us-east", List.of(0), harness.now()));
        harness.send(Records.request(id, harness.now()).build());
        DispatchedRequest first = dispatchEast.readValue();
        assertThat(first.getWorkerId()).isEqualTo("east-1");
        harness.decisions.readValuesToList();
        return first;
    }

    @Test
    void shouldPlaceAHandedBackRequestOnAnotherWorkerAsTheNextAttempt() {
        dispatchToEast("req-1");
        harness.report(Records.telemetry("west-1", "eu-west", List.of(0), harness.now()));

        harness.responsesIn.pipeInput("req-1", handBack("req-1", 1));

        DispatchedRequest again = dispatchWest.readValue();
        assertThat(again.getAttempt()).isEqualTo(2);
        assertThat(again.getWorkerId()).as("east-1 is left out although its telemetry does not say it is limited yet")
                .isEqualTo("west-1");
        assertThat(again.getRequest().getPrompt()).as("read back: the in-flight entry kept none")
                .isEqualTo(Records.request("req-1", 0).build().getPrompt());
        RoutingDecision decision = harness.decisions.readValue();
        assertThat(decision.getAttempt()).isEqualTo(2);
        assertThat(decision.getReason()).startsWith("placed again, handed back by east-1: " + REASON);
        assertThat(harness.responses.isEmpty()).as("no answer: the new attempt writes the result").isTrue();
        assertThat(harness.inFlight().get("req-1").getAttempt()).isEqualTo(2);
        assertThat(harness.metrics.registry().counter(RouterMetrics.REQUESTS_HANDED_BACK, "region", "us-east", "outcome", "placed")
                .count()).isEqualTo(1.0);

        harness.responsesIn.pipeInput("req-1", handBack("req-1", 1));
        assertThat(dispatchWest.isEmpty()).as("a hand-back of an attempt already replaced changes nothing").isTrue();
        assertThat(dispatchEast.isEmpty()).isTrue();
    }

    @Test
    void shouldParkAHandedBackRequestNoOtherWorkerCanTakeAndPlaceItAsTheNextAttemptLater() {
        dispatchToEast("req-1");

        harness.responsesIn.pipeInput("req-1", handBack("req-1", 1));
        harness.advance(1_000);

        assertThat(dispatchEast.isEmpty()).as("not back to the worker that handed it back").isTrue();
        assertThat(harness.responses.isEmpty()).as("it waits; no answer").isTrue();
        assertThat(harness.inFlight().get("req-1")).as("it runs nowhere now").isNull();
        assertThat(harness.metrics.registry().counter(RouterMetrics.REQUESTS_HANDED_BACK, "region", "us-east", "outcome", "parked")
                .count()).isEqualTo(1.0);

        harness.report(Records.telemetry("west-1", "eu-west", List.of(0), harness.now()));
        harness.advance(1_000);

        DispatchedRequest later = dispatchWest.readValue();
        assertThat(later.getAttempt()).as("outranks the run handed back").isEqualTo(2);
        assertThat(later.getRequest().getPrompt()).as("parked whole").isEqualTo(Records.request("req-1", 0).build().getPrompt());
        assertThat(harness.inFlight().get("req-1").getAttempt()).isEqualTo(2);
    }

    @Test
    void shouldAnswerAParkedHandedBackRequestWithAnAttemptThatOutranksItsRun() {
        dispatchToEast("req-1");
        harness.responsesIn.pipeInput("req-1", handBack("req-1", 1));
        harness.cancellationsIn.pipeInput("req-1", io.kvroute.schemas.v1.CancelRequest.newBuilder().setRequestId("req-1")
                .setReason("the user's").setRequestedAtMs(harness.now()).build());

        harness.advance(1_000);

        ResponseEvent answer = harness.responses.readValue();
        assertThat(answer.getTerminal().getStatus()).isEqualTo(ResponseStatus.CANCELLED);
        assertThat(answer.getAttempt()).as("outranks the handed-back run").isGreaterThan(RunAttempt.of(1, 3));
    }

    @Test
    void shouldAnswerFailedOnceARequestWasPlacedTheMostTimes() {
        dispatchToEast("req-1");
        for (int attempt = 1; attempt < 4; attempt++) {
            String worker = "west-" + attempt;
            harness.report(Records.telemetry(worker, "eu-west", List.of(0), harness.now()));
            harness.responsesIn.pipeInput("req-1", handBack("req-1", attempt));
            assertThat(dispatchWest.readValue().getAttempt()).isEqualTo(attempt + 1);
        }
        harness.report(Records.telemetry("west-9", "eu-west", List.of(0), harness.now()));

        harness.responsesIn.pipeInput("req-1", handBack("req-1", 4));

        assertThat(dispatchWest.isEmpty()).isTrue();
        ResponseEvent answer = harness.responses.readValue();
        assertThat(answer.getTerminal().getStatus()).isEqualTo(ResponseStatus.FAILED);
        assertThat(answer.getTerminal().getError()).startsWith("handed back by west-3: " + REASON).contains("placed 4 times");
        assertThat(answer.getAttempt()).as("outranks the handed-back run").isGreaterThan(RunAttempt.of(4, 3));
        assertThat(harness.decisions.readValuesToList()).last().extracting(RoutingDecision::getOutcome)
                .isEqualTo(DecisionOutcome.NO_CAPACITY);
    }
}
