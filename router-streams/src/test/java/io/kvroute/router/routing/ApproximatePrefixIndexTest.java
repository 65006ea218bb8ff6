package io.kvroute.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ApproximatePrefixIndexTest {

    @Test
    void shouldCountOnlyLeadingBlocksRoutedToTheWorker() {
        ApproximatePrefixIndex index = new ApproximatePrefixIndex(100);
        index.record("w-a", new long[] {1, 2, 3}, 10);

        assertThat(index.longestMatch("w-a", new long[] {1, 2, 3, 4})).isEqualTo(3);
        assertThat(index.longestMatch("w-a", new long[] {1, 9, 3})).isEqualTo(1);
        assertThat(index.longestMatch("w-a", new long[] {5, 1, 2})).isZero();
        assertThat(index.longestMatch("w-b", new long[] {1, 2, 3})).isZero();
    }

    @Test
    void shouldStayWithinItsCapacityTrimmingTheLeastRecentlyRouted() {
        ApproximatePrefixIndex index = new ApproximatePrefixIndex(5);
        index.record("w-a", new long[] {1, 2, 3}, 10);
        index.record("w-b", new long[] {7, 8}, 20);
        index.record("w-a", new long[] {1}, 30);
        index.record("w-c", new long[] {4, 5}, 40);

        assertThat(index.size()).isEqualTo(5);
        assertThat(index.longestMatch("w-a", new long[] {1})).isEqualTo(1);
        assertThat(index.longestMatch("w-a", new long[] {2})).isZero();
        assertThat(index.longestMatch("w-a", new long[] {3})).isZero();
        assertThat(index.longestMatch("w-c", new long[] {4, 5})).isEqualTo(2);
    }

    @Test
    void shouldNotRefreshRecencyOnLookups() {
        ApproximatePrefixIndex index = new ApproximatePrefixIndex(2);
        index.record("w-a", new long[] {1}, 10);
        index.record("w-a", new long[] {2}, 20);
        index.longestMatch("w-a", new long[] {1});
        index.record("w-a", new long[] {3}, 30);

        assertThat(index.longestMatch("w-a", new long[] {1})).isZero();
        assertThat(index.longestMatch("w-a", new long[] {2})).isEqualTo(1);
    }
}
