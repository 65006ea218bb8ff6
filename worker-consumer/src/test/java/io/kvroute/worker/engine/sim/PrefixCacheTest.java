package io.kvroute.worker.engine.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.worker.engine.KvChanges;
import org.junit.jupiter.api.Test;

class PrefixCacheTest {
    private final KvBlockPool pool = new KvBlockPool(12);
    private final PrefixCache cache = new PrefixCache(pool);

    private PrefixCache.Entry storeAndRelease(long hash) {
        int[] pages = {pool.allocate(), pool.allocate(), pool.allocate(), pool.allocate()};
        PrefixCache.Entry entry = cache.store(hash, pages);
        cache.release(entry);
        return entry;
    }

    @Test
    void shouldEvictTheLeastRecentlyReleasedBlockFirst() {
        storeAndRelease(1);
        storeAndRelease(2);
        storeAndRelease(3);
        assertThat(cache.evictionOrder()).containsExactly(1L, 2L, 3L);

        cache.release(cache.acquire(1));
        assertThat(cache.evictionOrder()).containsExactly(2L, 3L, 1L);

        assertThat(cache.evictOne()).isTrue();
        assertThat(cache.contains(2)).isFalse();
        assertThat(pool.freeBlocks()).isEqualTo(4);
        assertThat(cache.evictionOrder()).containsExactly(3L, 1L);
    }

    @Test
    void shouldNeverEvictABlockInUse() {
        storeAndRelease(1);
        PrefixCache.Entry pinned = cache.acquire(1);
        assertThat(cache.evictOne()).isFalse();
        assertThat(pool.referencedBlocks()).isEqualTo(4);
        cache.release(pinned);
        assertThat(cache.evictOne()).isTrue();
    }

    @Test
    void shouldMatchOnlyTheLeadingCachedHashes() {
        storeAndRelease(1);
        storeAndRelease(2);
        assertThat(cache.matchPrefix(new long[] {1, 2, 3}, 3)).isEqualTo(2);
        assertThat(cache.matchPrefix(new long[] {2, 1}, 2)).isEqualTo(2);
        assertThat(cache.matchPrefix(new long[] {9, 1}, 2)).isZero();
        assertThat(cache.matchPrefix(new long[] {1, 2}, 1)).isEqualTo(1);
    }

    @Test
    void shouldReportNettedStoredAndEvictedHashes() {
        storeAndRelease(1);
        storeAndRelease(2);
        cache.evictOne();
        KvChanges first = cache.drainChanges();
        assertThat(first.stored()).containsExactly(2L);
        assertThat(first.evicted()).isEmpty();

        cache.evictOne();
        storeAndRelease(3);
        KvChanges second = cache.drainChanges();
        assertThat(second.stored()).containsExactly(3L);
        assertThat(second.evicted()).containsExactly(2L);
        assertThat(cache.drainChanges().isEmpty()).isTrue();
    }

    @Test
    void shouldNotStoreAHashTwice() {
        storeAndRelease(1);
        int[] pages = {pool.allocate(), pool.allocate(), pool.allocate(), pool.allocate()};
        assertThat(cache.store(1, pages)).isNull();
    }
}
