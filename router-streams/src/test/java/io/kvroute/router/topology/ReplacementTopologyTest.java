package io.kvroute.router.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.schemas.topics.CancelHeaders;
import io.kvroute.schemas.topics.ResponseHeaders;
import io.kvroute.schemas.topics.RunAttempt;
import io.kvroute.schemas.v1.CancelRequest;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.RoutingDecision;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Re-placement of dispatched, unfinished requests when their region goes silent. */
class ReplacementTopologyTest {
    private static final long PATIENCE_MS = 10_000;
    private static final long DEDUP_RETENTION_MS = 60_000;

    @TempDir
    Path stateDir;

    private TopologyHarness harness;
    private TestOutputTopic<String, DispatchedRequest> dispatchEast;
    private TestOutputTopic<String, DispatchedRequest> dispatchWest;
    private TestOutputTopic<String, RoutingDecision> decisions;
    private TestOutputTopic<String, ResponseEvent> responses;
    private TestOutputTopic<String, CancelRequest> cancellations;

    @BeforeEach
    void startDriver() {
        harness = new TopologyHarness(stateDir, Map.of("router.replace.patience.ms", Long.toString(PATIENCE_MS)));
        dispatchEast = harness.dispatched("us-east");
        dispatchWest = harness.dispatched("eu-west");
        decisions = harness.decisions;
        responses = harness.responses;
        cancellations = harness.cancellations;
    }

    @AfterEach
    void closeDriver() {
        harness.close();
    }

    private long now() {
        return harness.now();
    }

    /** Advances the wall clock in 1 s steps, the listed workers reporting at each step. */
    private void advanceReporting(long ms, String... reporting) {
        for (long step = 0; step < ms; step += 1_000) {
            harness.advance(1_000);
            for (String worker : reporting) {
                String region = worker.startsWith("east") ? "us-east" : "eu-west";
                harness.report(Records.telemetry(worker, region, List.of(0), now()));
            }
        }
    }

    /** Dispatches {@code id} to us-east while only us-east reports, then brings eu-west up. */
    private void dispatchToEastThenStartWest(InferenceRequest request) {
        harness.report(Records.telemetry("east-1", "us-east", List.of(0), now()));
        harness.send(request);
        assertThat(dispatchEast.readValue().getAttempt()).isEqualTo(1);
        assertThat(decisions.readValue().getOutcome()).isEqualTo(DecisionOutcome.DISPATCHED);
        harness.report(Records.telemetry("west-1", "eu-west", List.of(0), now()));
    }

    @Test
    void shouldKeepNoPromptInFlightAndPlaceAgainWithTheWholeRequestReadBack() {
        dispatchToEastThenStartWest(Records.request("req-1", now()).build());

        DispatchedRequest kept = harness.inFlight().get("req-1");
        assertThat(kept.getRequest().getPrompt()).as("the in-flight entry keeps no prompt").isNull();
        assertThat(kept.getRequest().getPrefixBlockHashes()).as("but what routing needs").containsExactly(11L, 12L, 13L);
        assertThat(kept.getSourceTopic()).isEqualTo(harness.config.topics().requests().name());
        assertThat(kept.getSourceOffset()).isEqualTo(0L);

        advanceReporting(PATIENCE_MS + 2_000, "west-1");

        DispatchedRequest again = dispatchWest.readValue();
        assertThat(again.getAttempt()).isEqualTo(2);
        assertThat(again.getRequest().getPrompt()).as("read back for the worker").isEqualTo(Records.request("req-1", 0).build().getPrompt());
        assertThat(again.getSourceTopic()).as("dispatch records do not say where the router read from").isNull();
        assertThat(harness.readBackFrom).containsExactly(harness.config.topics().requests().name());
        assertThat(harness.inFlight().get("req-1").getRequest().getPrompt()).as("the new entry keeps none either").isNull();
    }

    @Test
    void shouldAnswerFailedAndVoidTheOldRunWhenTheRequestCannotBeReadBackToPlaceItAgain() {
        dispatchToEastThenStartWest(Records.request("req-1", now()).build());
        harness.unreadable = "offset 0 is before the log start offset 7 (retention)";

        advanceReporting(PATIENCE_MS + 2_000, "west-1");

        assertThat(dispatchWest.isEmpty()).isTrue();
        CancelRequest marker = cancellations.readValue();
        assertThat(marker.getSupersedesBelowAttempt()).isEqualTo(2);
        ResponseEvent answer = responses.readValue();
        assertThat(answer.getTerminal().getStatus()).isEqualTo(ResponseStatus.FAILED);
        assertThat(answer.getTerminal().getError()).contains("could not be placed again from silent region us-east")
                .contains("retention");
        assertThat(harness.inFlight().get("req-1")).isNull();
    }

    @Test
    void shouldReplaceAnUnfinishedRequestOfASilentRegionWithTheNextAttemptAndVoidTheOldOne() {
        dispatchToEastThenStartWest(Records.request("req-1", now()).build());

        advanceReporting(PATIENCE_MS - 2_000, "west-1");
        assertThat(dispatchWest.isEmpty()).as("not yet past the patience").isTrue();

        advanceReporting(4_000, "west-1");

        DispatchedRequest again = dispatchWest.readValue();
        assertThat(again.getAttempt()).isEqualTo(2);
        assertThat(again.getRegion()).isEqualTo("eu-west");
        assertThat(again.getRequest().getRequestId()).isEqualTo("req-1");
        TestRecord<String, CancelRequest> markerRecord = cancellations.readRecord();
        assertThat(CancelHeaders.isSupersede(markerRecord.headers())).as("marked without decoding").isTrue();
        CancelRequest marker = markerRecord.value();
        assertThat(marker.getRequestId()).isEqualTo("req-1");
        assertThat(marker.getSupersedesBelowAttempt()).isEqualTo(2);
        RoutingDecision decision = decisions.readValue();
        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.DISPATCHED);
        assertThat(decision.getAttempt()).isEqualTo(2);
        assertThat(decision.getReason()).startsWith("re-placed from us-east (region us-east silent for");
        assertThat(responses.isEmpty()).isTrue();
        assertThat(harness.metrics.registry().counter(RouterMetrics.REQUESTS_REPLACED, "region", "us-east").count()).isEqualTo(1.0);

        advanceReporting(PATIENCE_MS * 2, "west-1");
        assertThat(dispatchWest.isEmpty()).as("re-placed once, not again while its new region reports").isTrue();
        assertThat(dispatchEast.isEmpty()).isTrue();
    }

    @Test
    void shouldNotReplaceARequestWhoseResultIsOnTheResponsesTopic() {
        dispatchToEastThenStartWest(Records.request("req-1", now()).build());
        harness.responsesIn.pipeInput("req-1", harness.completed("req-1", RunAttempt.of(1, 1), 150, 3));

        advanceReporting(PATIENCE_MS * 2, "west-1");

        assertThat(dispatchWest.isEmpty()).isTrue();
        assertThat(cancellations.isEmpty()).isTrue();
    }

    @Test
    void shouldGiveAStartingRouterThePatienceToReadResultsBeforeReplacingAnything() {
        harness.close();
        harness = new TopologyHarness(stateDir, Map.of("router.telemetry.ttl.ms", "10000", "router.replace.patience.ms", "12000"));
        // the router starts while us-east has been quiet for most of the patience: its telemetry, 9 s old, is within the
        // TTL, so the request goes there
        harness.telemetry.pipeInput("east-1", Records.telemetry("east-1", "us-east", List.of(0), now() - 9_000).build());
        harness.send(Records.request("req-1", now()).build());
        assertThat(harness.dispatched("us-east").readValue().getAttempt()).isEqualTo(1);

        // us-east is silent past the patience 3 s into the router's life, before the task has read every result (as
        // after a restart, when results written while it was down are still ahead of it)
        advanceReporting(5_000, "west-1");
        assertThat(harness.dispatched("eu-west").isEmpty()).as("not within the patience of the router's start").isTrue();
        harness.responsesIn.pipeInput("req-1", harness.completed("req-1", RunAttempt.of(1, 1), 150, 3));
        advanceReporting(20_000, "west-1");

        assertThat(harness.dispatched("eu-west").isEmpty()).isTrue();
        assertThat(harness.cancellations.isEmpty()).as("nothing voided").isTrue();
        assertThat(harness.inFlight().get("req-1")).isNull();
    }

    @Test
    void shouldSkipEventsMarkedAsChunksWithoutReadingThem() {
        dispatchToEastThenStartWest(Records.request("req-1", now()).build());
        RecordHeaders chunkHeader = new RecordHeaders();
        ResponseHeaders.markChunk(chunkHeader);
        // a terminal wrongly marked as a chunk shows the header alone decides: the request stays in flight
        harness.responsesIn.pipeInput(new TestRecord<>("req-1", harness.completed("req-1", RunAttempt.of(1, 1), 150, 3), chunkHeader));

        advanceReporting(PATIENCE_MS * 2, "west-1");

        assertThat(dispatchWest.readValue().getAttempt()).isEqualTo(2);
    }

    @Test
    void shouldNotReplaceWhileItsRegionKeepsReporting() {
        dispatchToEastThenStartWest(Records.request("req-1", now()).build());

        advanceReporting(PATIENCE_MS * 3, "east-1", "west-1");

        assertThat(dispatchWest.isEmpty()).isTrue();
        assertThat(cancellations.isEmpty()).isTrue();
    }

    @Test
    void shouldKeepARequestAllowedOnlyInTheSilentRegionWaitingThenExpireItOutrankingTheOldRun() {
        long deadline = now() + PATIENCE_MS * 3;
        dispatchToEastThenStartWest(Records.request("req-1", now()).setAllowedRegions(List.of("us-east"))
                .setDeadlineMs(deadline).build());

        advanceReporting(PATIENCE_MS * 2, "west-1");
        assertThat(dispatchWest.isEmpty()).as("never outside its allowed regions").isTrue();
        assertThat(responses.isEmpty()).isTrue();

        advanceReporting(PATIENCE_MS * 2, "west-1");

        ResponseEvent expired = responses.readValue();
        assertThat(expired.getTerminal().getStatus()).isEqualTo(ResponseStatus.EXPIRED);
        assertThat(expired.getAttempt()).isEqualTo(2 << 16);
        assertThat(cancellations.readValue().getSupersedesBelowAttempt()).isEqualTo(2);
        RoutingDecision decision = decisions.readValue();
        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.NO_CAPACITY);
        assertThat(decision.getAttempt()).isEqualTo(2);
        assertThat(decision.getReason()).startsWith("expired: deadline " + deadline + " passed while its region was silent");
        assertThat(harness.metrics.registry().counter(RouterMetrics.REQUESTS_EXPIRED).count()).isEqualTo(1.0);
        assertThat(dispatchWest.isEmpty()).isTrue();
        assertThat(dispatchEast.isEmpty()).isTrue();
    }

    @Test
    void shouldAnswerACancelFoundAtRePlacementLikeAnyOtherCancelWithoutDispatchingItAgain() {
        dispatchToEastThenStartWest(Records.request("req-1", now()).build());
        harness.cancellationsIn.pipeInput("req-1", CancelRequest.newBuilder().setRequestId("req-1").setReason("user")
                .setRequestedAtMs(now()).build());

        advanceReporting(PATIENCE_MS * 2, "west-1");

        ResponseEvent cancelled = responses.readValue();
        assertThat(cancelled.getTerminal().getStatus()).isEqualTo(ResponseStatus.CANCELLED);
        assertThat(cancelled.getTerminal().getError()).startsWith("cancelled while its region was silent (region us-east silent for");
        assertThat(cancelled.getAttempt()).as("outranks the old run").isEqualTo(RunAttempt.routerAnswer(2))
                .isGreaterThan(RunAttempt.of(1, 1));
        RoutingDecision decision = decisions.readValue();
        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.REJECTED);
        assertThat(decision.getAttempt()).isEqualTo(2);
        assertThat(decision.getReason()).startsWith("cancelled: cancelled while its region was silent");
        assertThat(harness.metrics.registry().counter(RouterMetrics.REQUESTS_CANCELLED).count()).isEqualTo(1.0);
        assertThat(harness.inFlight().get("req-1")).isNull();
        assertThat(dispatchWest.isEmpty()).isTrue();
        assertThat(cancellations.isEmpty()).as("the user's cancel already voids the old run").isTrue();
        assertThat(responses.isEmpty()).as("answered once").isTrue();
    }

    @Test
    void shouldAnswerFailedAndStopTrackingARequestWhoseResultNeverComesWithinTheDedupRetention() {
        harness.close();
        harness = new TopologyHarness(stateDir, Map.of("router.replace.patience.ms", Long.toString(PATIENCE_MS),
                "router.dedup.retention.ms", Long.toString(DEDUP_RETENTION_MS)));
        harness.report(Records.telemetry("east-1", "us-east", List.of(0), now()));
        harness.send(Records.request("req-1", now()).setAllowedRegions(List.of("us-east")).build());
        assertThat(harness.dispatched("us-east").readValue().getAttempt()).isEqualTo(1);
        harness.decisions.readValue();

        advanceReporting(DEDUP_RETENTION_MS - 5_000, "west-1");
        assertThat(harness.inFlight().get("req-1")).as("waiting for its silent region").isNotNull();
        assertThat(harness.responses.isEmpty()).isTrue();

        advanceReporting(DEDUP_RETENTION_MS / 2, "west-1");

        assertThat(harness.inFlight().get("req-1")).isNull();
        ResponseEvent failed = harness.responses.readValue();
        assertThat(failed.getTerminal().getStatus()).isEqualTo(ResponseStatus.FAILED);
        assertThat(failed.getTerminal().getError()).contains("no result within " + DEDUP_RETENTION_MS + " ms");
        assertThat(failed.getAttempt()).as("below any run of attempt 1: a late result still wins")
                .isEqualTo(RunAttempt.routerAnswer(1)).isLessThan(RunAttempt.of(1, 1));
        assertThat(harness.cancellations.isEmpty()).as("no marker voids the run").isTrue();
        RoutingDecision decision = harness.decisions.readValue();
        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.REJECTED);
        assertThat(decision.getAttempt()).isEqualTo(1);
        assertThat(harness.metrics.registry().counter(RouterMetrics.REQUESTS_FORGOTTEN).count()).isEqualTo(1.0);
        assertThat(harness.responses.isEmpty()).as("answered once").isTrue();
    }

    @Test
    void shouldNotTakeAMarkedRecordItCannotDecodeForACancelButStillCancelOnAnUnmarkedOne() {
        harness.report(Records.telemetry("east-1", "us-east", List.of(0), now()));
        byte[] undecodable = {0, 0, 0, 0, 99, 1, 2};
        harness.cancellationsRawIn.pipeInput(new TestRecord<>("req-1", undecodable,
                CancelHeaders.markSupersede(new RecordHeaders())));
        harness.cancellationsRawIn.pipeInput("req-2", undecodable);

        harness.send(Records.request("req-1", now()).build());
        harness.send(Records.request("req-2", now()).build());

        assertThat(dispatchEast.readValue().getRequest().getRequestId()).isEqualTo("req-1");
        assertThat(dispatchEast.isEmpty()).isTrue();
        ResponseEvent cancelled = responses.readValue();
        assertThat(cancelled.getRequestId()).isEqualTo("req-2");
        assertThat(cancelled.getTerminal().getStatus()).isEqualTo(ResponseStatus.CANCELLED);
    }

    @Test
    void shouldNotTakeARePlacementMarkerForACancel() {
        harness.report(Records.telemetry("east-1", "us-east", List.of(0), now()));
        harness.cancellationsIn.pipeInput("req-1", CancelRequest.newBuilder().setRequestId("req-1").setRequestedAtMs(now())
                .setSupersedesBelowAttempt(2).build());

        harness.send(Records.request("req-1", now()).build());

        assertThat(dispatchEast.readValue().getRequest().getRequestId()).isEqualTo("req-1");
        assertThat(responses.isEmpty()).isTrue();
    }
}
