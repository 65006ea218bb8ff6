package io.kvroute.router.routing;

import static io.kvroute.router.routing.Fleet.NOW;
import static io.kvroute.router.routing.Fleet.request;
import static io.kvroute.router.routing.Fleet.worker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BaselinePoliciesTest {

    @Test
    void shouldCycleRoundRobinOverEverySlot() {
        Router router = Router.create(RoundRobinPolicy.NAME, Fleet.settings());
        List<WorkerSnapshot> fleet = List.of(worker("w-a").ownedPartitions(List.of(0, 1)).build(),
                worker("w-b").ownedPartitions(List.of(2)).build());
        List<String> slots = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Placement p = router.route(request("r" + i, 100), fleet, NOW).placement().orElseThrow();
            slots.add(p.workerId() + "/" + p.partition());
        }
        assertThat(slots).containsExactly("w-a/0", "w-a/1", "w-b/2", "w-a/0");
    }

    @Test
    void shouldPickTheShortestQueueCountingPendingLoad() {
        Router router = Router.create(LeastQueuePolicy.NAME, Fleet.settings());
        List<WorkerSnapshot> fleet = List.of(worker("w-a").running(3).build(), worker("w-b").running(1).build());
        List<String> chosen = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            chosen.add(router.route(request("r" + i, 100), fleet, NOW).placement().orElseThrow().workerId());
        }
        assertThat(chosen).containsExactly("w-b", "w-b", "w-a");
    }

    @Test
    void shouldKnowPoliciesByName() {
        assertThat(Policies.names()).containsExactly("kvroute", "round-robin", "least-queue");
        assertThatThrownBy(() -> Policies.create("random", new RouterState(Fleet.settings())))
                .hasMessageContaining("random");
    }
}
