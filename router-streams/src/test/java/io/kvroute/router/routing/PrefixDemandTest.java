package io.kvroute.router.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class PrefixDemandTest {

    @Test
    void shouldCountRequestsPerLeadingBlockDecayingWithTheTimeConstant() {
        PrefixDemand demand = new PrefixDemand(1024, 1_000);
        long[] prompt = {11, 12, 13};
        demand.add(prompt, 2, 0);
        demand.add(prompt, 3, 0);

        assertThat(demand.recent(11, 0)).isEqualTo(2.0);
        assertThat(demand.recent(12, 0)).isEqualTo(2.0);
        assertThat(demand.recent(13, 0)).as("only the blocks named").isEqualTo(1.0);
        assertThat(demand.recent(99, 0)).isZero();
        assertThat(demand.recent(11, 1_000)).isCloseTo(2.0 / Math.E, within(1e-9));
        demand.add(prompt, 1, 1_000);
        assertThat(demand.recent(11, 1_000)).isCloseTo(2.0 / Math.E + 1, within(1e-9));
    }

    @Test
    void shouldLetABlockTakeOverAnotherBlocksSlotOnlyOnceThatBlocksCountHasDecayed() {
        PrefixDemand demand = new PrefixDemand(1, 1_000);
        demand.add(new long[] {1}, 1, 0);
        demand.add(new long[] {1}, 1, 0);
        demand.add(new long[] {2}, 1, 10);

        assertThat(demand.recent(1, 10)).as("a live count keeps its slot").isGreaterThan(1.9);
        assertThat(demand.recent(2, 10)).isZero();
        long decayed = (long) Math.ceil(1_000 * Math.log(2 / PrefixDemand.TAKEOVER_BELOW));
        demand.add(new long[] {2}, 1, decayed);
        assertThat(demand.recent(2, decayed)).isEqualTo(1.0);
        assertThat(demand.recent(1, decayed)).as("its count went with its slot").isZero();
    }

    @Test
    void shouldRefuseASizeThatIsNotAPowerOfTwoOrANonPositiveTimeConstant() {
        assertThatThrownBy(() -> new PrefixDemand(1000, 1_000)).hasMessageContaining("power of two");
        assertThatThrownBy(() -> new PrefixDemand(1024, 0)).hasMessageContaining("tauMs positive");
    }
}
