package io.kvroute.schemas.topics;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.v1.CandidateScore;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.RoutingDecision;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DecisionComponentsTest {

    @Test
    void shouldNameEachComponentOnceAndReadEveryCandidateBack() {
        Map<String, Double> chosen = ordered("ttft_ms", 120.5, "queue_ms", 30.0);
        Map<String, Double> other = ordered("ttft_ms", 300.25, "kv_penalty_ms", 7.0);
        List<String> names = DecisionComponents.names(List.of(chosen, other));
        assertThat(names).containsExactly("ttft_ms", "queue_ms", "kv_penalty_ms");

        RoutingDecision decision = decision(names, List.of(candidate("a", DecisionComponents.values(names, chosen), Map.of()),
                candidate("b", DecisionComponents.values(names, other), Map.of())));

        assertThat(DecisionComponents.of(decision, decision.getTopCandidates().get(0)))
                .containsExactly(Map.entry("ttft_ms", 120.5), Map.entry("queue_ms", 30.0));
        assertThat(DecisionComponents.of(decision, decision.getTopCandidates().get(1)))
                .as("a component the candidate does not have is absent, not NaN")
                .containsExactly(Map.entry("ttft_ms", 300.25), Map.entry("kv_penalty_ms", 7.0));
    }

    @Test
    void shouldWriteTheValuesOfACandidateWhoseKeysComeInAnotherOrder() {
        Map<String, Double> chosen = ordered("ttft_ms", 1.0, "queue_ms", 2.0);
        Map<String, Double> reversed = ordered("queue_ms", 4.0, "ttft_ms", 3.0);
        List<String> names = DecisionComponents.names(List.of(chosen, reversed));
        assertThat(names).containsExactly("ttft_ms", "queue_ms");
        assertThat(DecisionComponents.values(names, reversed)).containsExactly(3f, 4f);
        assertThat(DecisionComponents.values(names, Map.of("queue_ms", 5.0))).containsExactly(Float.NaN, 5f);
    }

    @Test
    void shouldReadTheMapOfAnOlderRouter() {
        RoutingDecision decision = decision(List.of(), List.of(candidate("a", List.of(), Map.of("queue", 3.0))));
        assertThat(DecisionComponents.of(decision, decision.getTopCandidates().get(0))).containsExactly(Map.entry("queue", 3.0));
    }

    @Test
    void shouldIgnoreValuesBeyondTheNames() {
        RoutingDecision decision = decision(List.of("ttft_ms"), List.of(candidate("a", List.of(1f, 2f), Map.of())));
        assertThat(DecisionComponents.of(decision, decision.getTopCandidates().get(0))).containsExactly(Map.entry("ttft_ms", 1.0));
    }

    private static Map<String, Double> ordered(String k1, double v1, String k2, double v2) {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put(k1, v1);
        m.put(k2, v2);
        return m;
    }

    private static CandidateScore candidate(String worker, List<Float> values, Map<String, Double> legacy) {
        return CandidateScore.newBuilder().setWorkerId(worker).setRegion("us-east").setPartition(0).setScore(1.0)
                .setComponents(legacy).setComponentValues(values).build();
    }

    private static RoutingDecision decision(List<String> names, List<CandidateScore> candidates) {
        return RoutingDecision.newBuilder().setRequestId("r").setTenant("t").setModel("m").setOutcome(DecisionOutcome.DISPATCHED)
                .setPolicy("kvroute").setReason("").setDecidedAtMs(1).setComponentNames(names).setTopCandidates(candidates).build();
    }
}
