package io.kvroute.router.routing;

import static io.kvroute.router.routing.Fleet.NOW;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FleetViewTest {
    private final RoutingSettings settings = Fleet.settings();

    @Test
    void shouldKeepPerModelAndRegionListsAsWorkersJoinMoveAndLeave() {
        FleetView fleet = new FleetView();
        fleet.put(Fleet.worker("fv-a").build());
        fleet.put(Fleet.worker("fv-b").build());
        fleet.put(WorkerSnapshot.builder("fv-c", "eu-west").observedAtMs(NOW).build());
        RouteRequest anywhere = Fleet.request("r1", 100);
        RouteRequest westOnly = new RouteRequest("r2", "t", Fleet.MODEL, 100, null, 64, 10, Set.of("eu-west"), "BATCH",
                RouteRequest.NO_DEADLINE);

        assertThat(fleet.eligible(anywhere, settings).size()).isEqualTo(3);
        assertThat(fleet.eligible(westOnly, settings).size()).isEqualTo(1);

        fleet.put(WorkerSnapshot.builder("fv-a", "eu-west").observedAtMs(NOW).build());
        fleet.put(Fleet.worker("fv-b").models(Set.of("qwen-32b")).build());
        fleet.remove("fv-c");

        assertThat(fleet.size()).isEqualTo(2);
        assertThat(fleet.eligible(westOnly, settings).size()).isEqualTo(1);
        assertThat(fleet.eligible(anywhere, settings).size()).isEqualTo(1);
        assertThat(fleet.serving("qwen-32b")).isEqualTo(1);
        assertThat(fleet.get("fv-a").region()).isEqualTo("eu-west");
        assertThat(fleet.all()).extracting(WorkerSnapshot::workerId).containsExactly("fv-a", "fv-b");
    }

    @Test
    void shouldKeepACopyAsItWasWhileTheViewChanges() {
        FleetView fleet = new FleetView();
        fleet.put(Fleet.worker("fv-k1").running(1).build());
        fleet.put(WorkerSnapshot.builder("fv-k2", "eu-west").observedAtMs(NOW).build());
        RouteRequest anywhere = Fleet.request("r3", 100);

        FleetView copy = fleet.copy();
        fleet.put(Fleet.worker("fv-k1").running(7).build());
        fleet.put(Fleet.worker("fv-k3").build());
        fleet.remove("fv-k2");

        assertThat(copy.all()).extracting(WorkerSnapshot::workerId).containsExactly("fv-k1", "fv-k2");
        assertThat(copy.get("fv-k1").running()).isEqualTo(1);
        assertThat(copy.eligible(anywhere, settings).size()).isEqualTo(2);
        assertThat(fleet.all()).extracting(WorkerSnapshot::workerId).containsExactly("fv-k1", "fv-k3");
    }

    @Test
    void shouldCopyTheFleetWithoutOneWorkerLeavingTheViewWhole() {
        FleetView fleet = new FleetView();
        fleet.put(Fleet.worker("fv-w1").build());
        fleet.put(Fleet.worker("fv-w2").build());

        FleetView without = fleet.copyWithout("fv-w1");

        assertThat(without.all()).extracting(WorkerSnapshot::workerId).containsExactly("fv-w2");
        assertThat(without.get("fv-w1")).isNull();
        assertThat(fleet.all()).extracting(WorkerSnapshot::workerId).containsExactly("fv-w1", "fv-w2");
        assertThat(fleet.copyWithout("fv-none").size()).isEqualTo(2);
    }

    @Test
    void shouldNotReplaceANewerSnapshotWhenSeedingFromAStore() {
        FleetView fleet = new FleetView();
        fleet.put(Fleet.worker("fv-s").running(5).observedAtMs(NOW).build());

        fleet.putAllIfNewer(List.of(Fleet.worker("fv-s").running(1).observedAtMs(NOW - 50).build(),
                Fleet.worker("fv-t").observedAtMs(NOW - 50).build()));

        assertThat(fleet.get("fv-s").running()).isEqualTo(5);
        assertThat(fleet.size()).isEqualTo(2);
    }

    @Test
    void shouldBuildTheSameListsInBulkAsOneAtATime() {
        List<WorkerSnapshot> workers = List.of(Fleet.worker("fv-1").build(), WorkerSnapshot.builder("fv-2", "eu-west").build(),
                Fleet.worker("fv-3").models(Set.of("qwen-32b")).build(), WorkerSnapshot.builder("fv-1", "eu-west").build());
        FleetView bulk = FleetView.of(workers);
        FleetView single = new FleetView();
        workers.forEach(single::put);
        RouteRequest request = Fleet.request("r", 100);

        assertThat(bulk.all()).isEqualTo(single.all());
        assertThat(bulk.eligible(request, settings).size()).isEqualTo(single.eligible(request, settings).size()).isEqualTo(2);
        assertThat(bulk.serving("qwen-32b")).isEqualTo(single.serving("qwen-32b")).isEqualTo(1);
    }
}
