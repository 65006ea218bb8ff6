package io.kvroute.router.routing;

import static io.kvroute.router.routing.Fleet.NOW;
import static io.kvroute.router.routing.Fleet.request;
import static io.kvroute.router.routing.Fleet.worker;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class UnknownKvTest {
    /** w-c's server exports no KV use: it reports 0 blocks of 0. */
    private final List<WorkerSnapshot> fleet = List.of(worker("w-a").kvBlocks(28_000, 14_000).build(),
            worker("w-b").kvBlocks(28_000, 22_400).build(), worker("w-c").kvBlocks(0, 0).build());

    @Test
    void shouldNotTakeAWorkerThatDoesNotKnowItsKvUseForAnEmptyOne() {
        for (String policy : List.of(SeedLowestKvPolicy.NAME, GieWeightedPolicy.NAME, DynamoKvPolicy.NAME)) {
            Router router = Router.create(policy, Fleet.settings());
            Placement placement = router.route(request("r1", 100), fleet, NOW).placement().orElseThrow();
            assertThat(placement.workerId()).as(policy).isEqualTo("w-a");
        }
    }

    @Test
    void shouldPriceAWorkerThatDoesNotKnowItsKvUseAtTheMedianOfThoseThatDo() {
        List<WorkerSnapshot> priced = UnknownKv.neutral(fleet);

        WorkerSnapshot unknown = priced.get(2);
        assertThat(unknown.kvUsage()).isCloseTo(0.65, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(unknown.kvBlocksUsed()).isEqualTo((14_000 + 22_400) / 2);
        assertThat(unknown.kvBlocksTotal()).as("still not reported").isZero();
        assertThat(priced.subList(0, 2)).isEqualTo(fleet.subList(0, 2));
    }

    @Test
    void shouldLeaveTheCandidatesAsTheyAreWhenAllOrNoneKnowTheirKvUse() {
        List<WorkerSnapshot> known = fleet.subList(0, 2);
        List<WorkerSnapshot> unknown = List.of(worker("w-c").kvBlocks(0, 0).build(), worker("w-d").kvBlocks(0, 0).build());

        assertThat(UnknownKv.neutral(known)).isSameAs(known);
        assertThat(UnknownKv.neutral(unknown)).isSameAs(unknown);
    }
}
