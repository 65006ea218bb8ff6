package io.kvroute.router.routing;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Which prefix blocks each worker says its KV cache holds, built from the workers' own KV events
 * (precise, unlike {@link ApproximatePrefixIndex} which only knows the router's decisions).
 *
 * <p>Per worker a set of block hashes: a stored hash is added, an evicted one removed, an
 * {@code allCleared} event empties the set first. A sequence gap (an event whose sequence is not
 * the previous one + 1) means events were missed: the worker's view is emptied before the event is
 * applied, so the index under-reports (never claims a block the worker may have lost). Each event
 * hash costs O(1); emptying a worker that holds blocks visits the whole table (rare: restarts and
 * gaps). Memory is bounded by {@code capacity} entries over all workers, an entry being a (worker,
 * block) pair or a pair's host-memory mark: a stored hash or a mark beyond it is dropped and counted
 * in {@link #droppedStores()}.
 *
 * <p>A held block is in GPU memory unless the worker reported it offloaded to host memory (and not
 * reloaded since); such blocks are marked in a second inverted index, so a decision can charge the
 * copy back to the GPU ({@link #hostOnlyBlocks}). A worker that does not report tiers has no marks.
 *
 * <p>Stored as one {@link BlockHolders} inverted index (block → workers), so a decision finds the
 * workers holding a request's leading blocks without visiting the others ({@link #prepare}).
 *
 * <p>Thread-safety: {@link #apply} and {@link #removeWorker} take a write lock (one writer in
 * practice: the global-store thread); reads take the read lock briefly, so stream threads may call
 * {@link #longestMatch} while events are applied. A reader sees each block's state as of some
 * moment during the read, which is all a routing estimate needs.
 */
public final class KvEventIndex {

    /** What {@link #apply} did with an event. */
    public enum Outcome {
        /** Applied in sequence (or the worker's first event). */
        APPLIED,
        /** The worker reported an empty cache; its view was replaced. */
        CLEARED,
        /** A sequence gap: the worker's view was emptied, then the event applied. */
        RESET_AFTER_GAP
    }

    private final int capacity;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final BlockHolders holders = new BlockHolders();
    /** The held pairs whose block is only in the worker's host memory: a subset of {@link #holders}. */
    private final BlockHolders hostOnly = new BlockHolders();
    private final ConcurrentHashMap<String, WorkerState> byWorker = new ConcurrentHashMap<>();
    private final ThreadLocal<PrefixLookup> lookups = new ThreadLocal<>();
    private final AtomicLong size = new AtomicLong();
    private final AtomicLong droppedStores = new AtomicLong();
    private final AtomicLong gaps = new AtomicLong();
    private volatile long version;

    public KvEventIndex(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
    }

    /** Applies one worker's event. */
    public Outcome apply(KvEvent event) {
        lock.writeLock().lock();
        try {
            return applyLocked(event);
        } finally {
            lock.writeLock().unlock();
        }
    }

    private Outcome applyLocked(KvEvent event) {
        WorkerState blocks = byWorker.get(event.workerId());
        Outcome outcome = Outcome.APPLIED;
        if (event.allCleared()) {
            outcome = Outcome.CLEARED;
            blocks = replace(event.workerId());
            blocks.complete = true;
        } else if (blocks != null && event.sequence() != blocks.lastSequence + 1) {
            outcome = Outcome.RESET_AFTER_GAP;
            gaps.incrementAndGet();
            blocks = replace(event.workerId());
        } else if (blocks == null) {
            blocks = replace(event.workerId());
            // a worker's first event: what it held before is known only if this is its very first
            blocks.complete = event.sequence() == 0;
        }
        int worker = blocks.id;
        for (long hash : event.evictedBlockHashes()) {
            if (holders.remove(hash, worker)) {
                blocks.count--;
                size.decrementAndGet();
                unmarkHostOnly(hash, blocks);
            }
        }
        for (long hash : event.storedBlockHashes()) {
            if (size.get() >= capacity) {
                if (!holders.contains(hash, worker)) {
                    droppedStores.incrementAndGet();
                    blocks.complete = false;
                }
            } else if (holders.add(hash, worker)) {
                blocks.count++;
                size.incrementAndGet();
            }
        }
        for (long hash : event.offloadedBlockHashes()) {
            if (!holders.contains(hash, worker) || hostOnly.contains(hash, worker)) {
                continue;
            }
            if (size.get() >= capacity) {
                // unmarked, the block reads as in GPU memory: the estimate misses its copy, as before tiers were reported
                droppedStores.incrementAndGet();
            } else if (hostOnly.add(hash, worker)) {
                blocks.hostOnlyCount++;
                size.incrementAndGet();
            }
        }
        for (long hash : event.reloadedBlockHashes()) {
            unmarkHostOnly(hash, blocks);
        }
        blocks.lastSequence = event.sequence();
        version++;
        return outcome;
    }

    private void unmarkHostOnly(long hash, WorkerState blocks) {
        if (blocks.hostOnlyCount > 0 && hostOnly.remove(hash, blocks.id)) {
            blocks.hostOnlyCount--;
            size.decrementAndGet();
        }
    }

    /** Forgets a worker (it left the fleet). */
    public void removeWorker(String workerId) {
        lock.writeLock().lock();
        try {
            WorkerState removed = byWorker.remove(workerId);
            if (removed != null) {
                forget(removed);
                version++;
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Number of leading blocks of {@code hashes} that {@code workerId} reported holding. */
    public int longestMatch(String workerId, long[] hashes) {
        PrefixLookup prepared = lookups.get();
        if (prepared != null && prepared.isFor(hashes, version)) {
            return prepared.match(workerId);
        }
        int worker = WorkerIds.find(workerId);
        if (worker < 0) {
            return 0;
        }
        lock.readLock().lock();
        try {
            int matched = 0;
            while (matched < hashes.length && holders.contains(hashes[matched], worker)) {
                matched++;
            }
            return matched;
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * How many of {@code hashes[0..matched)} the worker reported holding only in host memory: the
     * blocks it must copy back to the GPU before this prompt's prefill can start.
     */
    public int hostOnlyBlocks(String workerId, long[] hashes, int matched) {
        WorkerState blocks = byWorker.get(workerId);
        if (blocks == null || blocks.hostOnlyCount == 0) {
            return 0;
        }
        lock.readLock().lock();
        try {
            int n = 0;
            int limit = Math.min(matched, hashes.length);
            for (int i = 0; i < limit; i++) {
                if (hostOnly.contains(hashes[i], blocks.id)) {
                    n++;
                }
            }
            return n;
        } finally {
            lock.readLock().unlock();
        }
    }

    public boolean holds(String workerId, long hash) {
        int worker = WorkerIds.find(workerId);
        if (worker < 0) {
            return false;
        }
        lock.readLock().lock();
        try {
            return holders.contains(hash, worker);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Blocks indexed for one worker. */
    public int blockCount(String workerId) {
        WorkerState blocks = byWorker.get(workerId);
        return blocks == null ? 0 : blocks.count;
    }

    /**
     * Whether the index holds everything this worker holds: its events since its cache was empty
     * (its first event, or an "all cleared" one) were all applied, with no sequence gap and no
     * store dropped for the index's capacity. Otherwise what it reports is a lower bound.
     */
    public boolean complete(String workerId) {
        WorkerState blocks = byWorker.get(workerId);
        return blocks != null && blocks.complete;
    }

    /**
     * Blocks the worker holds in GPU memory (held and not offloaded to host memory) when the index
     * holds its whole cache ({@link #complete}), else -1: one look-up for both.
     */
    public int gpuBlockCountIfComplete(String workerId) {
        WorkerState blocks = byWorker.get(workerId);
        return blocks != null && blocks.complete ? blocks.count - blocks.hostOnlyCount : -1;
    }

    /** Whether any event of this worker was applied (and it was not removed since). */
    public boolean knows(String workerId) {
        return byWorker.containsKey(workerId);
    }

    /** Entries, all workers together: (worker, block) pairs held, and host-memory marks of such pairs. */
    public long size() {
        return size.get();
    }

    public int capacity() {
        return capacity;
    }

    /** Stored hashes and host-memory marks not indexed because the index was full. */
    public long droppedStores() {
        return droppedStores.get();
    }

    /** Sequence gaps seen, each of which emptied a worker's view. */
    public long gaps() {
        return gaps.get();
    }

    /**
     * Fetches the holders of {@code hashes}' leading blocks once, for the calling thread; until
     * the index changes or {@link #release}, {@link #longestMatch} for the same array reads them.
     */
    PrefixLookup prepare(long[] hashes) {
        lock.readLock().lock();
        try {
            PrefixLookup lookup = PrefixLookup.fetch(holders, hashes, version);
            lookups.set(lookup);
            return lookup;
        } finally {
            lock.readLock().unlock();
        }
    }

    void release() {
        lookups.remove();
    }

    private WorkerState replace(String workerId) {
        WorkerState fresh = new WorkerState(WorkerIds.of(workerId));
        WorkerState old = byWorker.put(workerId, fresh);
        if (old != null) {
            forget(old);
        }
        return fresh;
    }

    private void forget(WorkerState old) {
        if (old.count > 0) {
            size.addAndGet(-holders.removeWorker(old.id));
        }
        if (old.hostOnlyCount > 0) {
            size.addAndGet(-hostOnly.removeWorker(old.id));
        }
    }

    private static final class WorkerState {
        private final int id;
        /** Written only under the write lock. */
        private volatile int count;
        /** Of {@link #count}, the blocks only in host memory. Written only under the write lock. */
        private volatile int hostOnlyCount;
        private long lastSequence;
        /** Every block the worker holds is indexed: its events since an empty cache, none missed or dropped. */
        private volatile boolean complete;

        WorkerState(int id) {
            this.id = id;
        }
    }
}
