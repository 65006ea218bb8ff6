package io.kvroute.router.routing;

import static io.kvroute.router.routing.Fleet.NOW;
import static io.kvroute.router.routing.Fleet.request;
import static io.kvroute.router.routing.Fleet.worker;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CandidateFilterTest {
    private final RouterState state = new RouterState(Fleet.settings());
    private final CandidateFilter filter = new CandidateFilter(state);

    @Test
    void shouldExcludeStaleTelemetry() {
        WorkerSnapshot fresh = worker("w-a").observedAtMs(NOW - 1_999).build();
        WorkerSnapshot stale = worker("w-b").observedAtMs(NOW - 2_001).build();

        CandidateSet set = filter.filter(request("r1", 100), List.of(fresh, stale), NOW);

        assertThat(set.candidates()).extracting(WorkerSnapshot::workerId).containsExactly("w-a");
        assertThat(set.excludedCount(Exclusion.STALE)).isEqualTo(1);
        assertThat(set.exclusionSummary()).isEqualTo("1 worker stale telemetry");
    }

    @Test
    void shouldExcludeRegionsTheRequestDoesNotAllow() {
        WorkerSnapshot east = worker("w-a").build();
        WorkerSnapshot west = WorkerSnapshot.builder("w-b", "eu-west").observedAtMs(NOW).build();
        RouteRequest westOnly = new RouteRequest("r1", "t", Fleet.MODEL, 100, null, 64, 10, Set.of("eu-west"), "BATCH",
                RouteRequest.NO_DEADLINE);

        CandidateSet set = filter.filter(westOnly, List.of(east, west), NOW);

        assertThat(set.candidates()).extracting(WorkerSnapshot::workerId).containsExactly("w-b");
        assertThat(set.excludedCount(Exclusion.REGION_NOT_ALLOWED)).isEqualTo(1);
    }

    @Test
    void shouldExcludeWorkersInRegionsTheRouterDoesNotKnow() {
        WorkerSnapshot unknown = WorkerSnapshot.builder("w-x", "ap-south").observedAtMs(NOW).build();
        assertThat(filter.filter(request("r1", 100), List.of(unknown), NOW).excludedCount(Exclusion.REGION_NOT_ALLOWED)).isEqualTo(1);
    }

    @Test
    void shouldExcludeWorkersNotServingTheModel() {
        WorkerSnapshot other = worker("w-a").models(Set.of("qwen-32b")).build();
        CandidateSet set = filter.filter(request("r1", 100), List.of(other), NOW);
        assertThat(set.isEmpty()).isTrue();
        assertThat(set.excludedCount(Exclusion.MODEL_NOT_SERVED)).isEqualTo(1);
    }

    @Test
    void shouldExcludeSaturatedWorkers() {
        WorkerSnapshot queueFull = worker("w-a").maxRunning(10).running(10).waiting(10).build();
        WorkerSnapshot kvFull = worker("w-b").kvBlocks(1_000, 990).build();
        WorkerSnapshot fine = worker("w-c").build();

        CandidateSet set = filter.filter(request("r1", 100), List.of(queueFull, kvFull, fine), NOW);

        assertThat(set.candidates()).extracting(WorkerSnapshot::workerId).containsExactly("w-c");
        assertThat(set.excludedCount(Exclusion.SATURATED)).isEqualTo(2);
    }

    @Test
    void shouldKeepAWorkerWhoseKvIsFullForARequestWhosePrefixItHoldsOnlyWhenThePolicyPricesKv() {
        long[] prefix = Fleet.blocks(8, 11);
        WorkerSnapshot kvFullHolder = worker("w-a").kvBlocks(1_000, 990).build();
        WorkerSnapshot kvFullOther = worker("w-b").kvBlocks(1_000, 990).build();
        WorkerSnapshot queueFullHolder = worker("w-c").maxRunning(10).running(10).waiting(10).build();
        state.prefixIndex().record("w-a", prefix, NOW - 10);
        state.prefixIndex().record("w-c", prefix, NOW - 10);
        List<WorkerSnapshot> workers = List.of(kvFullHolder, kvFullOther, queueFullHolder);

        CandidateSet pricingKv = new CandidateFilter(state, true).filter(request("r1", 600, prefix), workers, NOW);
        CandidateSet plain = filter.filter(request("r1", 600, prefix), workers, NOW);

        assertThat(pricingKv.candidates()).extracting(WorkerSnapshot::workerId).containsExactly("w-a");
        assertThat(pricingKv.excludedCount(Exclusion.SATURATED)).isEqualTo(2);
        assertThat(plain.isEmpty()).isTrue();
        assertThat(plain.excludedCount(Exclusion.SATURATED)).isEqualTo(3);
    }

    @Test
    void shouldHoldTheQueueLimitForTheCandidatesTogetherWhenThePolicyPricesTheQueue() {
        // 2 x 10 slots: w-a past its own limit of 20 requests, w-b with room
        WorkerSnapshot pastItsLimit = worker("w-a").maxRunning(10).running(10).waiting(15).build();
        WorkerSnapshot withRoom = worker("w-b").maxRunning(10).running(4).build();
        CandidateFilter together = new CandidateFilter(state, true, true);

        CandidateSet roomLeft = together.filter(request("r1", 100), List.of(pastItsLimit, withRoom), NOW);
        CandidateSet eachAlone = filter.filter(request("r1", 100), List.of(pastItsLimit, withRoom), NOW);

        assertThat(roomLeft.candidates()).extracting(WorkerSnapshot::workerId).containsExactly("w-a", "w-b");
        assertThat(eachAlone.candidates()).extracting(WorkerSnapshot::workerId).containsExactly("w-b");

        // 25 + 15 requests against the 40 the two hold together: the request waits at the router
        WorkerSnapshot fuller = worker("w-b").maxRunning(10).running(10).waiting(5).build();
        CandidateSet full = together.filter(request("r2", 100), List.of(pastItsLimit, fuller), NOW);
        assertThat(full.isEmpty()).isTrue();
        assertThat(full.excludedCount(Exclusion.SATURATED)).isEqualTo(2);

        // a worker that does not report its batch limit is never saturated, alone or together
        WorkerSnapshot unknownLimit = worker("w-c").running(50).build();
        assertThat(together.filter(request("r3", 100), List.of(pastItsLimit, fuller, unknownLimit), NOW).candidates()).hasSize(3);
    }

    @Test
    void shouldCountPendingLoadTowardsSaturation() {
        WorkerSnapshot almostFull = worker("w-a").maxRunning(10).running(10).waiting(9).build();
        assertThat(filter.filter(request("r1", 100), List.of(almostFull), NOW).isEmpty()).isFalse();

        state.ledger().add("w-a", 0, 100, 10, NOW);

        assertThat(filter.filter(request("r2", 100), List.of(almostFull), NOW).excludedCount(Exclusion.SATURATED)).isEqualTo(1);
    }

    @Test
    void shouldUseDegradedWorkersOnlyWhenNoHealthyOneFits() {
        WorkerSnapshot degraded = worker("w-a").status(WorkerHealth.DEGRADED).build();
        WorkerSnapshot healthy = worker("w-b").build();
        WorkerSnapshot draining = worker("w-c").status(WorkerHealth.DRAINING).build();

        assertThat(filter.filter(request("r1", 100), List.of(degraded, healthy, draining), NOW).candidates())
                .extracting(WorkerSnapshot::workerId).containsExactly("w-b");
        assertThat(filter.filter(request("r2", 100), List.of(degraded, draining), NOW).candidates())
                .extracting(WorkerSnapshot::workerId).containsExactly("w-a");
    }

    @Test
    void shouldExcludeWorkersOwningNoPartition() {
        WorkerSnapshot idle = worker("w-a").ownedPartitions(List.of()).build();
        assertThat(filter.filter(request("r1", 100), List.of(idle), NOW).excludedCount(Exclusion.NO_PARTITIONS)).isEqualTo(1);
    }

    @Test
    void shouldListCandidatesInWorkerIdOrderWhateverOrderTheyArrive() {
        // ids first seen out of order, one a prefix of another, digits compared as characters
        List<String> ids = List.of("order-b9", "order-b10", "order-a", "order-b", "order-B", "order-b1");
        List<WorkerSnapshot> workers = new java.util.ArrayList<>();
        for (String id : ids) {
            workers.add(worker(id).build());
        }
        java.util.Collections.shuffle(workers, new java.util.Random(7));

        assertThat(filter.filter(request("r1", 100), workers, NOW).candidates()).extracting(WorkerSnapshot::workerId)
                .containsExactly("order-B", "order-a", "order-b", "order-b1", "order-b10", "order-b9");
        List<WorkerSnapshot> degraded = workers.stream().map(w -> worker(w.workerId()).status(WorkerHealth.DEGRADED).build()).toList();
        assertThat(filter.filter(request("r2", 100), degraded, NOW).candidates()).extracting(WorkerSnapshot::workerId)
                .containsExactly("order-B", "order-a", "order-b", "order-b1", "order-b10", "order-b9");
    }
}
