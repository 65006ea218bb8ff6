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
 * evictable, least recently released first, when the pool needs pages. With a {@link HostKvTier}
 * of non-zero capacity an evicted block is offloaded there rather than lost (the copy is not
 * charged: vLLM and LMCache overlap the device-to-host copy with compute). A hash is <em>held</em>
 * while it is in either tier; stored and evicted hashes, netted per hash, report changes of
 * held-ness for KV events, and offloaded and reloaded hashes the moves of held blocks between GPU
 * and host memory (vLLM's and SGLang's KV events name each block's medium for the same reason).
 * Not thread-safe.
 */
public final class PrefixCache {
    /** Where a hash is held, for the tier moves KV events report. */
    private static final byte NOT_HELD = 0;
    private static final byte ON_GPU = 1;
    private static final byte HOST_ONLY = 2;

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
    private final HostKvTier host;
    private final Map<Long, Entry> entries = new HashMap<>();
    private final LinkedHashMap<Long, Entry> evictable = new LinkedHashMap<>();
    private int evictablePages;
    /** hash → where it was held ({@link #NOT_HELD}, {@link #ON_GPU}, {@link #HOST_ONLY}) when the current change window began. */
    private final LinkedHashMap<Long, Byte> changedSinceDrain = new LinkedHashMap<>();

    /** A GPU-only cache: evicted blocks are lost. */
    public PrefixCache(KvBlockPool pool) {
        this(pool, new HostKvTier(0));
    }

    public PrefixCache(KvBlockPool pool, HostKvTier host) {
        this.pool = pool;
        this.host = host;
    }

    /**
     * How many hashes of {@code hashes[from..limit)}, in order from {@code from}, are in the host
     * tier but not on the GPU: the blocks a request can load after its GPU hits.
     */
    public int matchHost(long[] hashes, int from, int limit) {
        int n = Math.min(limit, hashes.length);
        int i = from;
        while (i < n && !entries.containsKey(hashes[i]) && host.contains(hashes[i])) {
            i++;
        }
        return Math.max(0, i - from);
    }

    /** Whether {@code hash} is in either tier. */
    public boolean holds(long hash) {
        return entries.containsKey(hash) || host.contains(hash);
    }

    public HostKvTier hostTier() {
        return host;
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
        noteChange(hash);
        host.touch(hash);
        Entry entry = new Entry(hash, pages.clone());
        entry.users = 1;
        entries.put(hash, entry);
        return entry;
    }

    /**
     * Evicts the least recently used unpinned block from the GPU, freeing its pages and offloading
     * it to the host tier (if that tier can take it); false if none is evictable.
     */
    public boolean evictOne() {
        Iterator<Entry> it = evictable.values().iterator();
        if (!it.hasNext()) {
            return false;
        }
        Entry victim = it.next();
        noteChange(victim.hash);
        it.remove();
        evictablePages -= victim.pages.length;
        entries.remove(victim.hash);
        for (int page : victim.pages) {
            pool.free(page);
        }
        host.offer(victim.hash, victim.pages.length, this::noteChange);
        return true;
    }

    /** Pages that eviction could free now. */
    public int evictablePages() {
        return evictablePages;
    }

    private void noteChange(long hash) {
        changedSinceDrain.putIfAbsent(hash, tier(hash));
    }

    private byte tier(long hash) {
        return entries.containsKey(hash) ? ON_GPU : host.contains(hash) ? HOST_ONLY : NOT_HELD;
    }

    /** Blocks cached on the GPU. */
    public int cachedBlocks() {
        return entries.size();
    }

    /**
     * Throws IllegalStateException unless every page is free, referenced, or owned by an unpinned
     * cached block, and the evictable set is exactly the unpinned blocks.
     */
    void checkInvariants(boolean expectIdle) {
        int evictableSum = 0;
        for (Entry entry : entries.values()) {
            boolean listed = evictable.containsKey(entry.hash);
            if ((entry.users == 0) != listed || entry.users < 0) {
                throw new IllegalStateException("block " + entry.hash + " has " + entry.users + " users, evictable " + listed);
            }
            for (int page : entry.pages) {
                if (pool.refCount(page) != entry.users) {
                    throw new IllegalStateException("page " + page + " of block " + entry.hash + " has "
                            + pool.refCount(page) + " references for " + entry.users + " users");
                }
            }
            evictableSum += entry.users == 0 ? entry.pages.length : 0;
        }
        if (evictableSum != evictablePages || evictable.size() > entries.size()) {
            throw new IllegalStateException("evictable pages " + evictablePages + ", counted " + evictableSum);
        }
        if (pool.freeBlocks() + pool.referencedBlocks() + evictablePages != pool.capacity()) {
            throw new IllegalStateException("pages leaked: " + pool.freeBlocks() + " free + " + pool.referencedBlocks()
                    + " referenced + " + evictablePages + " evictable != " + pool.capacity());
        }
        if (expectIdle && pool.referencedBlocks() != 0) {
            throw new IllegalStateException(pool.referencedBlocks() + " pages still referenced by no request");
        }
        host.checkInvariants(true);
    }

    /** Hashes in eviction order, least recently used first (for tests and debugging). */
    public List<Long> evictionOrder() {
        return new ArrayList<>(evictable.keySet());
    }

    /**
     * Hashes that became held and that stopped being held (left both tiers) since the previous drain,
     * and held hashes now only in host memory (offloaded, including stored ones that went there
     * before this drain) or back on the GPU (reloaded); a hash stored then evicted again is in none.
     */
    public KvChanges drainChanges() {
        if (changedSinceDrain.isEmpty()) {
            return KvChanges.NONE;
        }
        List<Long> stored = new ArrayList<>();
        List<Long> evicted = new ArrayList<>();
        List<Long> offloaded = new ArrayList<>();
        List<Long> reloaded = new ArrayList<>();
        changedSinceDrain.forEach((hash, was) -> {
            byte now = tier(hash);
            if (now == was) {
                return;
            }
            if (now == NOT_HELD) {
                evicted.add(hash);
                return;
            }
            if (was == NOT_HELD) {
                stored.add(hash);
            }
            if (now == HOST_ONLY) {
                offloaded.add(hash);
            } else if (was == HOST_ONLY) {
                reloaded.add(hash);
            }
        });
        changedSinceDrain.clear();
        return new KvChanges(stored, evicted, offloaded, reloaded);
    }
}
