package io.kvroute.router.routing;

import static io.kvroute.router.routing.Fleet.NOW;
import static io.kvroute.router.routing.Fleet.request;
import static io.kvroute.router.routing.Fleet.worker;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PowerOfTwoPolicyTest {
    /** Fresh telemetry at {@code t}: the router's earlier placements are in it, so the ledger holds none. */
    private static List<WorkerSnapshot> fleetAt(long t) {
        return List.of(worker("w-a").running(5).observedAtMs(t).build(), worker("w-b").running(1).observedAtMs(t).build(),
                worker("w-c").running(3).observedAtMs(t).build(), worker("w-d").running(7).observedAtMs(t).build(),
                worker("w-e").running(2).observedAtMs(t).build());
    }

    private static List<String> choices(long seed, int count) {
        Router router = Router.create(PowerOfTwoPolicy.NAME, Fleet.settings().withRandomSeed(seed));
        List<String> chosen = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long t = NOW + 1_000L * i;
            chosen.add(router.route(request("r" + i, 100), fleetAt(t), t).placement().orElseThrow().workerId());
        }
        return chosen;
    }

    @Test
    void shouldMakeTheSameChoicesForTheSameSeed() {
        assertThat(choices(7, 30)).isEqualTo(choices(7, 30));
        assertThat(choices(7, 30)).isNotEqualTo(choices(8, 30));
    }

    @Test
    void shouldTakeTheLessLoadedOfTwoDistinctDrawnWorkers() {
        Router router = Router.create(PowerOfTwoPolicy.NAME, Fleet.settings().withRandomSeed(3));
        for (int i = 0; i < 50; i++) {
            long t = NOW + 1_000L * i;
            Placement placement = router.route(request("r" + i, 100), fleetAt(t), t).placement().orElseThrow();
            assertThat(placement.topCandidates()).hasSize(2);
            ScoredCandidate first = placement.topCandidates().get(0);
            ScoredCandidate second = placement.topCandidates().get(1);
            assertThat(first.workerId()).isEqualTo(placement.workerId()).isNotEqualTo(second.workerId());
            assertThat(first.score()).isLessThanOrEqualTo(second.score());
        }
    }

    @Test
    void shouldNeverPickTheMostLoadedWorkerOfSeveral() {
        assertThat(choices(11, 200)).doesNotContain("w-d").contains("w-b", "w-e", "w-c", "w-a");
    }

    @Test
    void shouldCountPendingRequestsAsLoad() {
        List<WorkerSnapshot> pair = List.of(worker("w-a").build(), worker("w-b").build());
        Router router = Router.create(PowerOfTwoPolicy.NAME, Fleet.settings());
        List<String> chosen = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            chosen.add(router.route(request("r" + i, 100), pair, NOW).placement().orElseThrow().workerId());
        }
        assertThat(chosen).containsExactly("w-a", "w-b", "w-a", "w-b");
    }

    @Test
    void shouldPlaceOnTheOnlyCandidate() {
        Router router = Router.create(PowerOfTwoPolicy.NAME, Fleet.settings());
        assertThat(router.route(request("r1", 100), List.of(worker("w-a").build()), NOW).placement().orElseThrow().workerId())
                .isEqualTo("w-a");
    }
}
