package io.kvroute.router.routing;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Which prefix blocks each worker says its KV cache holds, built from the workers' own KV events
 * (precise, unlike {@link ApproximatePrefixIndex} which only knows the router's decisions).
 *
 * <p>Per worker a set of block hashes: a stored hash is added, an evicted one removed, an
 * {@code allCleared} event empties the set first. A sequence gap (an event whose sequence is not
 * the previous one + 1) means events were missed: the worker's view is emptied before the event is
 * applied, so the index under-reports (never claims a block the worker may have lost). Each event
 * hash costs O(1). Memory is bounded by {@code capacity} (worker, block) pairs over all workers:
 * a stored hash beyond it is dropped and counted in {@link #droppedStores()}.
 *
 * <p>Thread-safety: {@link #apply} and {@link #removeWorker} are serialised on the index (one
 * writer in practice: the global-store thread); every read is lock-free over concurrent sets,
 * so stream threads may call {@link #longestMatch} while events are applied. A reader sees each
 * block's state as of some moment during the read, which is all a routing estimate needs.
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
    private final ConcurrentHashMap<String, WorkerBlocks> byWorker = new ConcurrentHashMap<>();
    private final AtomicLong size = new AtomicLong();
    private final AtomicLong droppedStores = new AtomicLong();
    private final AtomicLong gaps = new AtomicLong();

    public KvEventIndex(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
    }

    /** Applies one worker's event. */
    public synchronized Outcome apply(KvEvent event) {
        WorkerBlocks blocks = byWorker.get(event.workerId());
        Outcome outcome = Outcome.APPLIED;
        if (event.allCleared()) {
            outcome = Outcome.CLEARED;
            blocks = replace(event.workerId());
        } else if (blocks != null && event.sequence() != blocks.lastSequence + 1) {
            outcome = Outcome.RESET_AFTER_GAP;
            gaps.incrementAndGet();
            blocks = replace(event.workerId());
        } else if (blocks == null) {
            blocks = replace(event.workerId());
        }
        for (long hash : event.evictedBlockHashes()) {
            if (blocks.hashes.remove(hash)) {
                size.decrementAndGet();
            }
        }
        for (long hash : event.storedBlockHashes()) {
            if (size.get() >= capacity) {
                if (!blocks.hashes.contains(hash)) {
                    droppedStores.incrementAndGet();
                }
            } else if (blocks.hashes.add(hash)) {
                size.incrementAndGet();
            }
        }
        blocks.lastSequence = event.sequence();
        return outcome;
    }

    /** Forgets a worker (it left the fleet). */
    public synchronized void removeWorker(String workerId) {
        WorkerBlocks removed = byWorker.remove(workerId);
        if (removed != null) {
            size.addAndGet(-removed.hashes.size());
        }
    }

    /** Number of leading blocks of {@code hashes} that {@code workerId} reported holding. */
    public int longestMatch(String workerId, long[] hashes) {
        WorkerBlocks blocks = byWorker.get(workerId);
        if (blocks == null) {
            return 0;
        }
        int matched = 0;
        for (long hash : hashes) {
            if (!blocks.hashes.contains(hash)) {
                break;
            }
            matched++;
        }
        return matched;
    }

    public boolean holds(String workerId, long hash) {
        WorkerBlocks blocks = byWorker.get(workerId);
        return blocks != null && blocks.hashes.contains(hash);
    }

    /** Blocks indexed for one worker. */
    public int blockCount(String workerId) {
        WorkerBlocks blocks = byWorker.get(workerId);
        return blocks == null ? 0 : blocks.hashes.size();
    }

    /** Whether any event of this worker was applied (and it was not removed since). */
    public boolean knows(String workerId) {
        return byWorker.containsKey(workerId);
    }

    /** (worker, block) pairs held, all workers together. */
    public long size() {
        return size.get();
    }

    public int capacity() {
        return capacity;
    }

    /** Stored hashes not indexed because the index was full. */
    public long droppedStores() {
        return droppedStores.get();
    }

    /** Sequence gaps seen, each of which emptied a worker's view. */
    public long gaps() {
        return gaps.get();
    }

    private WorkerBlocks replace(String workerId) {
        WorkerBlocks fresh = new WorkerBlocks();
        WorkerBlocks old = byWorker.put(workerId, fresh);
        if (old != null) {
            size.addAndGet(-old.hashes.size());
        }
        return fresh;
    }

    private static final class WorkerBlocks {
        private final Set<Long> hashes = ConcurrentHashMap.newKeySet();
        /** Written and read only under the index's lock. */
        private long lastSequence;
    }
}
