package io.kvroute.router.routing;

import java.util.Arrays;

/**
 * Which prompt blocks the router itself sent to which worker: an approximation of the workers'
 * prefix caches built only from the router's own decisions (as SGLang's router and the Gateway
 * API Inference Extension do). Bounded to {@code capacity} (block, worker) pairs; the least
 * recently routed pair is trimmed first. Lookups do not refresh recency: only routing does.
 * Not thread-safe: one index per routing processor.
 *
 * <p>Layout, for 1M pairs in tens of MB: a recency list of pairs in primitive arrays, a
 * {@link PairTable} from pair to list entry, and a {@link BlockHolders} inverted index from
 * block to the workers it was routed to, so a decision finds the workers holding a request's
 * leading blocks ({@link #prepare}) without visiting the others.
 *
 * <p>Each pair also carries until when the claim is worth trusting for a worker that reports its
 * cache in KV events ({@link #trustedMatch}): past that time the worker could have reported the
 * blocks, so its own events are the better source (they also say when it evicted them).
 *
 * <p>Each pair also keeps when it was last routed, for a reader that forgets claims after a
 * time to live, as Dynamo's approximate mode does ({@link #routedSinceMatch}).
 */
public final class ApproximatePrefixIndex {
    private static final int NIL = -1;

    private final int capacity;
    private final BlockHolders holders = new BlockHolders();
    private final PairTable entryOf = new PairTable();
    private long[] entryHash = new long[0];
    private int[] entryWorker = new int[0];
    private long[] entryTrustedUntilMs = new long[0];
    private long[] entryRoutedAtMs = new long[0];
    private int[] prev = new int[0];
    private int[] next = new int[0];
    private int head = NIL;
    private int tail = NIL;
    private int freeList = NIL;
    private int allocated;
    private int size;
    private long version;
    private PrefixLookup lookup;

    public ApproximatePrefixIndex(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
    }

    /** Records that the blocks {@code hashes} were routed to {@code workerId} at {@code nowMs}, trusted until evicted here. */
    public void record(String workerId, long[] hashes, long nowMs) {
        record(workerId, hashes, nowMs, Long.MAX_VALUE);
    }

    /**
     * Records that the blocks {@code hashes} were routed to {@code workerId} at {@code nowMs}, a
     * claim trusted until {@code trustedUntilMs} (routing a block there again extends it).
     * Recorded last block first: the first blocks, which every longer prompt shares, end up the
     * most recently routed (the last to be trimmed), and each block's trust is kept at least that
     * of the block after it, which {@link #trustedMatch} relies on (likewise each block's last routing
     * time, for {@link #routedSinceMatch}).
     */
    public void record(String workerId, long[] hashes, long nowMs, long trustedUntilMs) {
        int worker = WorkerIds.of(workerId);
        version++;
        entryOf.touch(hashes, worker);
        holders.touch(hashes, hashes.length);
        long trust = trustedUntilMs;
        long routedAt = nowMs;
        for (int i = hashes.length - 1; i >= 0; i--) {
            long hash = hashes[i];
            int entry = entryOf.get(hash, worker);
            if (entry != PairTable.ABSENT) {
                trust = Math.max(entryTrustedUntilMs[entry], trust);
                entryTrustedUntilMs[entry] = trust;
                routedAt = Math.max(entryRoutedAtMs[entry], routedAt);
                entryRoutedAtMs[entry] = routedAt;
                unlink(entry);
                linkLast(entry);
                continue;
            }
            if (size == capacity) {
                evict(head);
            }
            entry = newEntry();
            entryHash[entry] = hash;
            entryWorker[entry] = worker;
            entryTrustedUntilMs[entry] = trust;
            entryRoutedAtMs[entry] = routedAt;
            linkLast(entry);
            entryOf.put(hash, worker, entry);
            holders.add(hash, worker);
            size++;
        }
    }

    /** Number of leading blocks of {@code hashes} that were routed to {@code workerId}. */
    public int longestMatch(String workerId, long[] hashes) {
        PrefixLookup prepared = lookup;
        if (prepared != null && prepared.isFor(hashes, version)) {
            return prepared.match(workerId);
        }
        int worker = WorkerIds.find(workerId);
        if (worker < 0) {
            return 0;
        }
        int matched = 0;
        while (matched < hashes.length && holders.contains(hashes[matched], worker)) {
            matched++;
        }
        return matched;
    }

    /**
     * Number of leading blocks, among the first {@code upTo} of {@code hashes} (which must all be
     * routed to {@code workerId}: pass {@link #longestMatch}), whose claim is still trusted at
     * {@code nowMs}. Block hashes are chained, so every placement of a block also placed the blocks
     * before it, and a claim is never less fresh than the claims after it: a binary search over
     * the prefix finds where trust ends, in O(log n) lookups.
     */
    public int trustedMatch(String workerId, long[] hashes, int upTo, long nowMs) {
        return leadingMatch(workerId, hashes, upTo, entryTrustedUntilMs, nowMs);
    }

    /**
     * Number of leading blocks, among the first {@code upTo} of {@code hashes} (which must all be
     * routed to {@code workerId}: pass {@link #longestMatch}), last routed there at or after
     * {@code sinceMs}: the match of an index whose entries expire a time to live after their last
     * routing, routing again refreshing them. A block is never last routed before the blocks after
     * it ({@link #record}), so this is a binary search, as in {@link #trustedMatch}.
     */
    public int routedSinceMatch(String workerId, long[] hashes, int upTo, long sinceMs) {
        return leadingMatch(workerId, hashes, upTo, entryRoutedAtMs, sinceMs);
    }

    /**
     * Number of leading blocks among the first {@code upTo} whose entry for the worker has a time in {@code timesByEntry}
     * of at least {@code atLeast}; the times never grow along the prefix, so a binary search finds where that ends.
     */
    private int leadingMatch(String workerId, long[] hashes, int upTo, long[] timesByEntry, long atLeast) {
        int worker = WorkerIds.find(workerId);
        int limit = Math.min(upTo, hashes.length);
        if (worker < 0 || limit == 0) {
            return 0;
        }
        if (atLeast(hashes[limit - 1], worker, timesByEntry, atLeast)) {
            return limit;
        }
        int low = 0;
        int high = limit - 1;
        // invariant: blocks below low pass, the block at high does not
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (atLeast(hashes[mid], worker, timesByEntry, atLeast)) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    private boolean atLeast(long hash, int worker, long[] timesByEntry, long atLeast) {
        int entry = entryOf.get(hash, worker);
        return entry != PairTable.ABSENT && timesByEntry[entry] >= atLeast;
    }

    public int size() {
        return size;
    }

    public int capacity() {
        return capacity;
    }

    /**
     * Fetches the holders of {@code hashes}' leading blocks once; until the next {@link #record}
     * or {@link #release}, {@link #longestMatch} for the same array reads them instead of the table.
     */
    PrefixLookup prepare(long[] hashes) {
        lookup = PrefixLookup.fetch(holders, hashes, version);
        return lookup;
    }

    void release() {
        lookup = null;
    }

    private void evict(int entry) {
        unlink(entry);
        entryOf.remove(entryHash[entry], entryWorker[entry]);
        holders.remove(entryHash[entry], entryWorker[entry]);
        next[entry] = freeList;
        freeList = entry;
        size--;
    }

    private int newEntry() {
        if (freeList != NIL) {
            int entry = freeList;
            freeList = next[entry];
            return entry;
        }
        if (allocated == entryHash.length) {
            int grown = (int) Math.min(capacity, Math.max(1024L, entryHash.length * 2L));
            entryHash = Arrays.copyOf(entryHash, grown);
            entryWorker = Arrays.copyOf(entryWorker, grown);
            entryTrustedUntilMs = Arrays.copyOf(entryTrustedUntilMs, grown);
            entryRoutedAtMs = Arrays.copyOf(entryRoutedAtMs, grown);
            prev = Arrays.copyOf(prev, grown);
            next = Arrays.copyOf(next, grown);
        }
        return allocated++;
    }

    private void linkLast(int entry) {
        prev[entry] = tail;
        next[entry] = NIL;
        if (tail == NIL) {
            head = entry;
        } else {
            next[tail] = entry;
        }
        tail = entry;
    }

    private void unlink(int entry) {
        int before = prev[entry];
        int after = next[entry];
        if (before == NIL) {
            head = after;
        } else {
            next[before] = after;
        }
        if (after == NIL) {
            tail = before;
        } else {
            prev[after] = before;
        }
    }
}
