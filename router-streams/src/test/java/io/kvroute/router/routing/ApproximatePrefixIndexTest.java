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

    @Test
    void shouldStopATrustedMatchAtTheFirstBlockWhoseClaimHasLapsedAndExtendAClaimOnReRouting() {
        ApproximatePrefixIndex index = new ApproximatePrefixIndex(100);
        index.record("w-a", new long[] {1, 2}, 0, 1_000);
        index.record("w-a", new long[] {1, 2, 3, 4}, 500, 800);
        long[] prompt = {1, 2, 3, 4};

        assertThat(index.trustedMatch("w-a", prompt, 4, 800)).isEqualTo(4);
        assertThat(index.trustedMatch("w-a", prompt, 4, 801)).as("3 and 4 lapsed; 1 and 2 kept the later time").isEqualTo(2);
        assertThat(index.trustedMatch("w-a", prompt, 1, 801)).as("never past upTo").isEqualTo(1);
        assertThat(index.trustedMatch("w-a", prompt, 4, 1_001)).isZero();
        assertThat(index.trustedMatch("w-b", prompt, 4, 0)).isZero();
        assertThat(index.longestMatch("w-a", prompt)).as("the untimed match ignores trust").isEqualTo(4);
        index.record("w-a", new long[] {1}, 2_000);
        assertThat(index.trustedMatch("w-a", prompt, 4, Long.MAX_VALUE - 1)).as("recorded without a bound").isEqualTo(1);
    }

    @Test
    void shouldMatchOnlyBlocksLastRoutedSinceTheGivenTimeAndRefreshThemOnReRouting() {
        ApproximatePrefixIndex index = new ApproximatePrefixIndex(100);
        index.record("w-a", new long[] {1, 2, 3, 4}, 1_000);
        index.record("w-a", new long[] {1, 2}, 5_000);
        long[] prompt = {1, 2, 3, 4};

        assertThat(index.routedSinceMatch("w-a", prompt, 4, 1_000)).isEqualTo(4);
        assertThat(index.routedSinceMatch("w-a", prompt, 4, 1_001)).as("3 and 4 not routed since; 1 and 2 were").isEqualTo(2);
        assertThat(index.routedSinceMatch("w-a", prompt, 4, 5_001)).isZero();
        assertThat(index.routedSinceMatch("w-a", prompt, 1, 0)).as("never past upTo").isEqualTo(1);
        assertThat(index.routedSinceMatch("w-b", prompt, 4, 0)).isZero();
        index.record("w-a", new long[] {1, 2, 3}, 500);
        assertThat(index.routedSinceMatch("w-a", prompt, 4, 1_001)).as("an older routing never moves a time back").isEqualTo(2);
    }

    @Test
    void shouldKeepEachBlocksTrustAtLeastThatOfTheBlocksAfterIt() {
        ApproximatePrefixIndex index = new ApproximatePrefixIndex(100);
        index.record("w-a", new long[] {2, 3}, 0, 2_000);
        index.record("w-a", new long[] {1, 2, 3}, 0, 500);

        assertThat(index.trustedMatch("w-a", new long[] {1}, 1, 1_500)).as("raised to its successor's").isEqualTo(1);
        assertThat(index.trustedMatch("w-a", new long[] {1, 2, 3}, 3, 1_500)).isEqualTo(3);
    }

    @Test
    void shouldTrimAPromptsLastBlocksBeforeItsFirst() {
        ApproximatePrefixIndex index = new ApproximatePrefixIndex(3);
        index.record("w-a", new long[] {1, 2, 3}, 10);
        index.record("w-b", new long[] {9}, 20);

        assertThat(index.longestMatch("w-a", new long[] {1, 2, 3})).as("block 3 went first").isEqualTo(2);
    }
}
