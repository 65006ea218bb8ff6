package io.kvroute.worker.engine.sim;

import io.kvroute.worker.engine.KvChanges;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The automatic prefix cache: request hash blocks (several KV pages each) by block hash. A block
 * used by running requests is pinned; once no request uses it, it stays cached and becomes
 * evictable, least recently released first, when the pool needs pages. Stored and evicted hashes
 * are collected, netted per hash, for KV events. Not thread-safe.
 */
public final class PrefixCache {

    /** One cached hash block: its pages and how many requests use it. */
    public static final class Entry {
        private final long hash;
        private final int[] pages;
        private int users;

        private Entry(long hash, int[] pages) {
            this.hash = hash;
            this.pages = pages;
        }

        public long hash() {
            return hash;
        }

        public int[] pages() {
            return pages.clone();
        }

        public int users() {
            return users;
        }
    }

    private final KvBlockPool pool;
    private final Map<Long, Entry> entries = new HashMap<>();
    private final LinkedHashMap<Long, Entry> evictable = new LinkedHashMap<>();
    private int evictablePages;
    /** hash → whether it was cached when the current change window began. */
    private final LinkedHashMap<Long, Boolean> changedSinceDrain = new LinkedHashMap<>();

    public PrefixCache(KvBlockPool pool) {
        this.pool = pool;
    }

    /** How many leading hashes of {@code hashes[0..limit)} are cached. */
    public int matchPrefix(long[] hashes, int limit) {
        int n = Math.min(limit, hashes.length);
        for (int i = 0; i < n; i++) {
            if (!entries.containsKey(hashes[i])) {
                return i;
            }
        }
        return n;
    }

    public boolean contains(long hash) {
        return entries.containsKey(hash);
    }

    /** Pins a cached block for one more request, or returns null if it is not cached. */
    public Entry acquire(long hash) {
        Entry entry = entries.get(hash);
        if (entry == null) {
            return null;
        }
        if (entry.users++ == 0) {
            evictable.remove(hash);
            evictablePages -= entry.pages.length;
        }
        for (int page : entry.pages) {
            pool.retain(page);
        }
        return entry;
    }

    /** Unpins a block; when no request uses it any more it becomes the most recent evictable block. */
    public void release(Entry entry) {
        for (int page : entry.pages) {
            pool.release(page);
        }
        if (--entry.users == 0) {
            evictable.put(entry.hash, entry);
            evictablePages += entry.pages.length;
        }
    }

    /**
     * Turns pages a request has just computed into a cached block that the request keeps using.
     * Returns null (the pages stay private to the request) if the hash is already cached.
     */
    public Entry store(long hash, int[] pages) {
        if (entries.containsKey(hash)) {
            return null;
        }
        Entry entry = new Entry(hash, pages.clone());
        entry.users = 1;
        entries.put(hash, entry);
        changedSinceDrain.putIfAbsent(hash, Boolean.FALSE);
        return entry;
    }

    /** Evicts the least recently used unpinned block, freeing its pages; false if none is evictable. */
    public boolean evictOne() {
        Iterator<Entry> it = evictable.values().iterator();
        if (!it.hasNext()) {
            return false;
        }
        Entry victim = it.next();
        it.remove();
        evictablePages -= victim.pages.length;
        entries.remove(victim.hash);
        for (int page : victim.pages) {
            pool.free(page);
        }
        changedSinceDrain.putIfAbsent(victim.hash, Boolean.TRUE);
        return true;
    }

    /** Pages that eviction could free now. */
    public int evictablePages() {
        return evictablePages;
    }

    public int cachedBlocks() {
        return entries.size();
    }

    /** Hashes in eviction order, least recently used first (for tests and debugging). */
    public List<Long> evictionOrder() {
        return new ArrayList<>(evictable.keySet());
    }

    /** Hashes stored and evicted since the previous drain; a hash stored then evicted again is in neither. */
    public KvChanges drainChanges() {
        if (changedSinceDrain.isEmpty()) {
            return KvChanges.NONE;
        }
        List<Long> stored = new ArrayList<>();
        List<Long> evicted = new ArrayList<>();
        changedSinceDrain.forEach((hash, wasCached) -> {
            boolean cached = entries.containsKey(hash);
            if (cached && !wasCached) {
                stored.add(hash);
            } else if (!cached && wasCached) {
                evicted.add(hash);
            }
        });
        changedSinceDrain.clear();
        return new KvChanges(stored, evicted);
    }
}
