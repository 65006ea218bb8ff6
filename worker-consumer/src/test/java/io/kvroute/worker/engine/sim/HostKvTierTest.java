package io.kvroute.worker.engine.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HostKvTierTest {
    private final HostKvTier tier = new HostKvTier(12);
    private final List<Long> evicted = new ArrayList<>();

    @Test
    void shouldEvictTheLeastRecentlyUsedBlocksToStayWithinItsCapacity() {
        tier.offer(1, 4, evicted::add);
        tier.offer(2, 4, evicted::add);
        tier.offer(3, 4, evicted::add);
        tier.touch(1);

        assertThat(tier.offer(4, 8, evicted::add)).isTrue();

        assertThat(evicted).containsExactly(2L, 3L);
        assertThat(tier.evictionOrder()).containsExactly(1L, 4L);
        assertThat(tier.usedPages()).isEqualTo(12);
        tier.checkInvariants(true);
    }

    @Test
    void shouldNeverEvictAPinnedBlock() {
        tier.offer(1, 4, evicted::add);
        tier.offer(2, 4, evicted::add);
        tier.pin(List.of(1L));

        assertThat(tier.offer(3, 8, evicted::add)).isTrue();
        assertThat(evicted).containsExactly(2L);
        assertThat(tier.offer(4, 12, evicted::add)).as("cannot fit beside the pinned block").isFalse();
        assertThat(tier.contains(1)).isTrue();
        assertThat(tier.contains(4)).isFalse();

        tier.unpin(List.of(1L));
        tier.checkInvariants(true);
        assertThat(tier.offer(4, 12, evicted::add)).isTrue();
        assertThat(evicted).containsExactly(2L, 1L, 3L);
    }

    @Test
    void shouldKeepNothingWithoutCapacity() {
        HostKvTier none = new HostKvTier(0);
        assertThat(none.offer(1, 4, evicted::add)).isFalse();
        assertThat(none.cachedBlocks()).isZero();
        assertThat(evicted).isEmpty();
    }

    @Test
    void shouldRefreshABlockOfferedAgainWithoutCountingItTwice() {
        tier.offer(1, 4, evicted::add);
        tier.offer(2, 4, evicted::add);
        tier.offer(1, 4, evicted::add);
        assertThat(tier.evictionOrder()).containsExactly(2L, 1L);
        assertThat(tier.usedPages()).isEqualTo(8);
    }
}
