package io.kvroute.router.routing;

import static io.kvroute.router.routing.Fleet.NOW;
import static io.kvroute.router.routing.Fleet.blocks;
import static io.kvroute.router.routing.Fleet.request;
import static io.kvroute.router.routing.Fleet.worker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GieWeightedPolicyTest {
    private final Router router = Router.create(GieWeightedPolicy.NAME, Fleet.settings());
    private final long[] prompt = blocks(10, 9);

    private ScoredCandidate candidate(Placement placement, String workerId) {
        return placement.topCandidates().stream().filter(c -> c.workerId().equals(workerId)).findFirst().orElseThrow();
    }

    @Test
    void shouldScoreTwoQueuePlusTwoKvPlusThreePrefix() {
        router.state().prefixIndex().record("w-c", Arrays.copyOf(prompt, 4), NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").waiting(2).kvUsage(0.5).build(),
                worker("w-b").waiting(10).kvUsage(0.1).build(), worker("w-c").waiting(6).kvUsage(0.3).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        // w-a: 2*1 + 2*0.5 + 0 = 3.0; w-b: 0 + 2*0.9 + 0 = 1.8; w-c: 2*0.5 + 2*0.7 + 3*0.4 = 3.6
        assertThat(placement.workerId()).isEqualTo("w-c");
        assertThat(placement.score()).isCloseTo(3.6, within(1e-9));
        assertThat(candidate(placement, "w-a").score()).isCloseTo(3.0, within(1e-9));
        assertThat(candidate(placement, "w-b").score()).isCloseTo(1.8, within(1e-9));
        Map<String, Double> c = candidate(placement, "w-c").components();
        assertThat(c.get("queue")).isCloseTo(0.5, within(1e-9));
        assertThat(c.get("kv")).isCloseTo(0.7, within(1e-9));
        assertThat(c.get("prefix")).isCloseTo(0.4, within(1e-9));
    }

    @Test
    void shouldGiveEveryWorkerFullQueueScoreWhenQueuesAreEqual() {
        List<WorkerSnapshot> fleet = List.of(worker("w-a").waiting(3).kvUsage(0.4).build(), worker("w-b").waiting(3).kvUsage(0.2).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-b");
        assertThat(candidate(placement, "w-a").components()).containsEntry("queue", 1.0);
        assertThat(placement.score()).isCloseTo(2.0 + 1.6, within(1e-9));
    }

    @Test
    void shouldCountPendingRequestsInTheQueue() {
        List<WorkerSnapshot> fleet = List.of(worker("w-a").build(), worker("w-b").build());
        String first = router.route(request("r1", 640, blocks(10, 1)), fleet, NOW).placement().orElseThrow().workerId();
        String second = router.route(request("r2", 640, blocks(10, 2)), fleet, NOW + 1).placement().orElseThrow().workerId();
        assertThat(List.of(first, second)).containsExactly("w-a", "w-b");
    }
}
