package io.kvroute.router.topology.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.router.routing.Placement;
import io.kvroute.router.routing.RouteRequest;
import io.kvroute.router.routing.ScoreComponents;
import io.kvroute.router.routing.ScoredCandidate;
import io.kvroute.router.routing.WorkerSnapshot;
import io.kvroute.schemas.topics.DecisionComponents;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.RoutingDecision;
import io.kvroute.schemas.v1.WorkerStatus;
import io.kvroute.schemas.v1.WorkerTelemetry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConversionsTest {

    @Test
    void shouldCarryTheQueuedPrefillAndTheAttentionItOwesIntoTheSnapshot() {
        WorkerTelemetry telemetry = WorkerTelemetry.newBuilder()
                .setWorkerId("east-1").setRegion("us-east").setModels(List.of("llama-3.1-8b")).setOwnedPartitions(List.of(0))
                .setKvBlocksTotal(28_000).setKvBlocksUsed(7_000).setKvUsage(0.25)
                .setRunningRequests(3).setWaitingRequests(2).setRunningPrefill(1).setRunningDecode(2)
                .setQueuedPrefillTokens(12_000).setQueuedPrefillAttention(170_000_000L)
                .setStatus(WorkerStatus.HEALTHY).setObservedAtMs(1_000).build();

        WorkerSnapshot snapshot = Conversions.toSnapshot(telemetry);

        assertThat(snapshot.queuedPrefillTokens()).isEqualTo(12_000);
        assertThat(snapshot.queuedPrefillAttention()).isEqualTo(170_000_000L);
        assertThat(snapshot.runningPrefill()).isEqualTo(1);
        assertThat(snapshot.waiting()).isEqualTo(2);
    }

    private static final String[] KEYS = {"ttft_ms", "queue_ms", "kv"};

    @Test
    void shouldListTheComponentsOfCandidatesScoredAlikeOnceAndTheirValuesInThatOrder() {
        RoutingDecision decision = decisionOf(
                new ScoredCandidate("east-1", "us-east", 0, 12.5, new ScoreComponents(KEYS, 12.5, 3.0, 0.25)),
                new ScoredCandidate("east-2", "us-east", 1, 20.0, new ScoreComponents(KEYS, 20.0, 9.5, 0.75)));

        assertThat(decision.getComponentNames()).containsExactly(KEYS);
        assertThat(decision.getTopCandidates().get(1).getComponentValues()).containsExactly(20.0f, 9.5f, 0.75f);
        assertThat(DecisionComponents.of(decision, decision.getTopCandidates().get(0)))
                .containsExactly(Map.entry("ttft_ms", 12.5), Map.entry("queue_ms", 3.0), Map.entry("kv", 0.25));
    }

    @Test
    void shouldNameEveryComponentOfCandidatesScoredDifferently() {
        Map<String, Double> other = new LinkedHashMap<>();
        other.put("kv", 0.5);
        other.put("prefix_blocks", 4.0);
        RoutingDecision decision = decisionOf(
                new ScoredCandidate("east-1", "us-east", 0, 12.5, new ScoreComponents(KEYS, 12.5, 3.0, 0.25)),
                new ScoredCandidate("east-2", "us-east", 1, 20.0, other));

        assertThat(decision.getComponentNames()).containsExactly("ttft_ms", "queue_ms", "kv", "prefix_blocks");
        assertThat(decision.getTopCandidates().get(1).getComponentValues()).containsExactly(Float.NaN, Float.NaN, 0.5f, 4.0f);
        assertThat(decision.getTopCandidates().get(0).getComponentValues()).containsExactly(12.5f, 3.0f, 0.25f, Float.NaN);
    }

    private static RoutingDecision decisionOf(ScoredCandidate... top) {
        InferenceRequest request = InferenceRequest.newBuilder().setRequestId("r-1").setTenant("t").setModel("llama-3.1-8b")
                .setPrompt("hello").setMaxTokens(16).setPrefixBlockHashes(List.of(7L)).setPromptTokenEstimate(2).setSubmittedAtMs(1L)
                .build();
        RouteRequest routed = Conversions.toRouteRequest(request);
        Placement placement = new Placement(top[0].workerId(), top[0].region(), top[0].partition(), top[0].score(), 0, List.of(top),
                "lowest estimate");
        return Conversions.dispatchedDecision(request, routed, placement, "kvroute", top.length, "router-a", 5L);
    }
}
