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
    void shouldCountRunningAndWaitingRequestsInLeastQueue() {
        Router router = Router.create(LeastQueuePolicy.NAME, Fleet.settings());
        List<WorkerSnapshot> fleet = List.of(worker("w-a").running(1).waiting(3).build(), worker("w-b").running(3).build());
        Placement placement = router.route(request("r1", 100), fleet, NOW).placement().orElseThrow();
        assertThat(placement.workerId()).isEqualTo("w-b");
        assertThat(placement.topCandidates().get(0).components()).containsEntry("queue", 3.0);
    }

    @Test
    void shouldPlaceWithEveryPolicyAndExplainTheScore() {
        List<WorkerSnapshot> fleet = List.of(worker("w-a").running(2).build(), worker("w-b").build());
        for (String name : Policies.names()) {
            Router router = Router.create(name, Fleet.settings());
            Placement placement = router.route(request("r1", 300, Fleet.blocks(4, 1)), fleet, NOW).placement().orElseThrow();
            assertThat(placement.topCandidates()).as(name).isNotEmpty();
            assertThat(placement.topCandidates().get(0).components()).as(name).isNotEmpty();
            assertThat(placement.topCandidates().get(0).workerId()).as(name).isEqualTo(placement.workerId());
        }
    }

    @Test
    void shouldKnowPoliciesByName() {
        assertThat(Policies.names()).containsExactly("kvroute", "round-robin", "least-queue", "seed-lowest-kv",
                "power-of-two", "sglang-cache-aware", "gie-weighted", "dynamo-kv", "lmetric");
        assertThat(Policies.baselineNames()).hasSize(8).doesNotContain("kvroute");
        assertThat(Policies.variantNames()).containsExactly("sglang-cache-aware-lib");
        assertThat(Policies.allNames()).endsWith("lmetric", "sglang-cache-aware-lib");
        for (String name : Policies.allNames()) {
            assertThat(Policies.create(name, new RouterState(Fleet.settings())).name()).isEqualTo(name);
        }
        assertThatThrownBy(() -> Policies.create("random", new RouterState(Fleet.settings())))
                .hasMessageContaining("random");
    }
}
