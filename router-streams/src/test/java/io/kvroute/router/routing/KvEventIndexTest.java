package io.kvroute.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class KvEventIndexTest {
    private final KvEventIndex index = new KvEventIndex(1_000);

    @Test
    void shouldCountOnlyLeadingBlocksAWorkerReportedStored() {
        index.apply(KvEvent.stored("w-a", 0, 1, 2, 3, 5));

        assertThat(index.longestMatch("w-a", new long[] {1, 2, 3, 4, 5})).isEqualTo(3);
        assertThat(index.longestMatch("w-a", new long[] {2, 3})).isEqualTo(2);
        assertThat(index.longestMatch("w-a", new long[] {9, 1})).isZero();
        assertThat(index.longestMatch("w-b", new long[] {1, 2})).isZero();
        assertThat(index.size()).isEqualTo(4);
    }

    @Test
    void shouldForgetEvictedBlocks() {
        index.apply(KvEvent.stored("w-a", 0, 1, 2, 3));
        assertThat(index.apply(KvEvent.evicted("w-a", 1, 2))).isEqualTo(KvEventIndex.Outcome.APPLIED);

        assertThat(index.longestMatch("w-a", new long[] {1, 2, 3})).isEqualTo(1);
        assertThat(index.holds("w-a", 3)).isTrue();
        assertThat(index.size()).isEqualTo(2);
    }

    @Test
    void shouldEmptyAWorkerOnAllClearedThenApplyTheEventsBlocks() {
        index.apply(KvEvent.stored("w-a", 0, 1, 2, 3));
        index.apply(KvEvent.stored("w-b", 0, 1, 2));

        assertThat(index.apply(new KvEvent("w-a", 0, new long[] {7}, new long[0], true))).isEqualTo(KvEventIndex.Outcome.CLEARED);

        assertThat(index.longestMatch("w-a", new long[] {1})).isZero();
        assertThat(index.holds("w-a", 7)).isTrue();
        assertThat(index.longestMatch("w-b", new long[] {1, 2})).isEqualTo(2);
        assertThat(index.size()).isEqualTo(3);
    }

    @Test
    void shouldForgetAWorkersBlocksAfterASequenceGap() {
        index.apply(KvEvent.stored("w-a", 4, 1, 2, 3));
        index.apply(KvEvent.stored("w-a", 5, 4));

        assertThat(index.apply(KvEvent.stored("w-a", 7, 9))).isEqualTo(KvEventIndex.Outcome.RESET_AFTER_GAP);

        assertThat(index.longestMatch("w-a", new long[] {1, 2, 3, 4})).isZero();
        assertThat(index.holds("w-a", 9)).isTrue();
        assertThat(index.gaps()).isEqualTo(1);
        assertThat(index.blockCount("w-a")).isEqualTo(1);
        assertThat(index.apply(KvEvent.stored("w-a", 8, 10))).isEqualTo(KvEventIndex.Outcome.APPLIED);
    }

    @Test
    void shouldTreatAReplayedOlderSequenceAsAGap() {
        index.apply(KvEvent.stored("w-a", 0, 1));
        index.apply(KvEvent.stored("w-a", 1, 2));

        assertThat(index.apply(KvEvent.stored("w-a", 1, 2))).isEqualTo(KvEventIndex.Outcome.RESET_AFTER_GAP);
        assertThat(index.longestMatch("w-a", new long[] {1, 2})).isZero();
    }

    @Test
    void shouldDropStoresBeyondTheCapacityAndCountThem() {
        KvEventIndex small = new KvEventIndex(3);
        small.apply(KvEvent.stored("w-a", 0, 1, 2));
        small.apply(KvEvent.stored("w-b", 0, 1, 2, 3));

        assertThat(small.size()).isEqualTo(3);
        assertThat(small.droppedStores()).isEqualTo(2);
        assertThat(small.longestMatch("w-b", new long[] {1, 2})).isEqualTo(1);

        small.apply(KvEvent.evicted("w-a", 1, 1));
        small.apply(KvEvent.stored("w-b", 1, 2));
        assertThat(small.longestMatch("w-b", new long[] {1, 2})).isEqualTo(2);
    }

    @Test
    void shouldSayItHoldsAWorkersWholeCacheOnlyWhenNoEventWasMissedOrDropped() {
        KvEventIndex index = new KvEventIndex(4);
        index.apply(KvEvent.stored("from-start", 0, 1));
        index.apply(KvEvent.stored("mid-stream", 7, 2));
        index.apply(KvEvent.cleared("restarted", 3));
        index.apply(KvEvent.stored("gap", 0, 3));
        index.apply(KvEvent.stored("gap", 2, 4));

        assertThat(index.complete("from-start")).isTrue();
        assertThat(index.complete("mid-stream")).as("what it stored before is unknown").isFalse();
        assertThat(index.complete("restarted")).isTrue();
        assertThat(index.complete("gap")).isFalse();
        assertThat(index.complete("never")).isFalse();

        index.apply(KvEvent.stored("from-start", 1, 5, 6));
        assertThat(index.complete("from-start")).as("a store dropped at capacity").isFalse();
        index.apply(KvEvent.cleared("gap", 3));
        assertThat(index.complete("gap")).isTrue();
    }

    @Test
    void shouldMarkBlocksAWorkerOffloadedToHostMemoryUntilReloadedOrEvicted() {
        index.apply(KvEvent.stored("w-a", 0, 1, 2, 3, 4));
        index.apply(KvEvent.stored("w-b", 0, 1, 2));
        assertThat(index.gpuBlockCountIfComplete("w-a")).isEqualTo(4);

        index.apply(KvEvent.offloaded("w-a", 1, 3, 4, 99));

        assertThat(index.hostOnlyBlocks("w-a", new long[] {1, 2, 3, 4}, 4)).isEqualTo(2);
        assertThat(index.hostOnlyBlocks("w-a", new long[] {1, 2, 3, 4}, 3)).as("only the matched part counts").isEqualTo(1);
        assertThat(index.hostOnlyBlocks("w-b", new long[] {1, 2}, 2)).isZero();
        assertThat(index.longestMatch("w-a", new long[] {1, 2, 3, 4})).as("still held").isEqualTo(4);
        assertThat(index.gpuBlockCountIfComplete("w-a")).isEqualTo(2);
        assertThat(index.size()).as("a mark of a block it does not hold (99) is ignored").isEqualTo(6 + 2);

        index.apply(KvEvent.reloaded("w-a", 2, 3));
        index.apply(KvEvent.evicted("w-a", 3, 4));

        assertThat(index.hostOnlyBlocks("w-a", new long[] {1, 2, 3, 4}, 4)).isZero();
        assertThat(index.gpuBlockCountIfComplete("w-a")).isEqualTo(3);
        assertThat(index.size()).isEqualTo(5);

        index.apply(new KvEvent("w-a", 4, new long[] {7}, null, new long[] {7}, null, false));
        assertThat(index.hostOnlyBlocks("w-a", new long[] {7}, 1)).as("stored straight into host memory").isEqualTo(1);
        index.apply(KvEvent.stored("w-a", 9, 8));
        assertThat(index.hostOnlyBlocks("w-a", new long[] {7}, 1)).as("a gap forgets the marks with the blocks").isZero();
        assertThat(index.size()).isEqualTo(3);
    }

    @Test
    void shouldCountHostMarksAgainstTheCapacity() {
        KvEventIndex small = new KvEventIndex(3);
        small.apply(KvEvent.stored("w-a", 0, 1, 2));
        small.apply(KvEvent.offloaded("w-a", 1, 1, 2));

        assertThat(small.size()).isEqualTo(3);
        assertThat(small.droppedStores()).isEqualTo(1);
        assertThat(small.hostOnlyBlocks("w-a", new long[] {1, 2}, 2)).isEqualTo(1);
        assertThat(small.complete("w-a")).as("every held block is indexed; only a tier is unknown").isTrue();
    }

    @Test
    void shouldForgetARemovedWorker() {
        index.apply(KvEvent.stored("w-a", 0, 1, 2));
        index.removeWorker("w-a");

        assertThat(index.knows("w-a")).isFalse();
        assertThat(index.size()).isZero();
        assertThat(index.apply(KvEvent.stored("w-a", 9, 3))).isEqualTo(KvEventIndex.Outcome.APPLIED);
    }

    @Test
    void shouldServeReadersWhileOneThreadAppliesEvents() {
        long[] prefix = {1, 2, 3, 4};
        AtomicInteger impossible = new AtomicInteger();
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            for (int seq = 0; seq < 20_000; seq++) {
                index.apply(seq % 2 == 0 ? KvEvent.stored("w-a", seq, prefix) : KvEvent.evicted("w-a", seq, 4, 3, 2, 1));
            }
        });
        while (!writer.isDone()) {
            int matched = index.longestMatch("w-a", prefix);
            if (matched < 0 || matched > prefix.length) {
                impossible.incrementAndGet();
            }
        }
        writer.join();
        assertThat(impossible).hasValue(0);
        assertThat(index.longestMatch("w-a", prefix)).isZero();
        assertThat(index.size()).isZero();
    }
}
