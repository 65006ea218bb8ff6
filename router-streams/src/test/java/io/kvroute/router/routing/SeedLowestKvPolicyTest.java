package io.kvroute.router.routing;

import static io.kvroute.router.routing.Fleet.NOW;
import static io.kvroute.router.routing.Fleet.request;
import static io.kvroute.router.routing.Fleet.worker;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SeedLowestKvPolicyTest {
    private final Router router = Router.create(SeedLowestKvPolicy.NAME, Fleet.settings());

    @Test
    void shouldTakeTheLowestKvUsageFirstWhateverTheQueue() {
        List<WorkerSnapshot> fleet = List.of(worker("w-a").kvUsage(0.30).waiting(0).build(),
                worker("w-b").kvUsage(0.10).waiting(9).build(), worker("w-c").kvUsage(0.20).build());
        Placement placement = router.route(request("r1", 100), fleet, NOW).placement().orElseThrow();
        assertThat(placement.workerId()).isEqualTo("w-b");
        assertThat(placement.topCandidates()).extracting(ScoredCandidate::workerId).containsExactly("w-b", "w-c", "w-a");
        assertThat(placement.topCandidates().get(0).components()).containsEntry("kv", 0.10).containsEntry("queue", 9.0);
    }

    @Test
    void shouldBreakEqualKvUsageByQueueDepth() {
        List<WorkerSnapshot> fleet = List.of(worker("w-a").kvUsage(0.25).waiting(4).build(),
                worker("w-b").kvUsage(0.25).waiting(1).build());
        assertThat(router.route(request("r1", 100), fleet, NOW).placement().orElseThrow().workerId()).isEqualTo("w-b");
    }

    @Test
    void shouldIgnoreItsOwnPlacementsBetweenTelemetryRecords() {
        List<WorkerSnapshot> fleet = List.of(worker("w-a").kvUsage(0.20).build(), worker("w-b").kvUsage(0.21).build());
        for (int i = 0; i < 5; i++) {
            assertThat(router.route(request("r" + i, 2_000), fleet, NOW + i).placement().orElseThrow().workerId())
                    .isEqualTo("w-a");
        }
    }
}
