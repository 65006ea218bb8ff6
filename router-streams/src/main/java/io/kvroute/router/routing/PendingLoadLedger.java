package io.kvroute.router.routing;

import java.util.HashMap;
import java.util.Map;

/**
 * Per worker, the requests, prefill tokens and KV blocks the router placed since that worker's
 * last telemetry. Telemetry is always stale: without this ledger a burst arriving between two
 * telemetry records would all see the same "least loaded" worker and herd onto it.
 *
 * <p>An entry is dropped when telemetry observed more than {@code graceMs} after the placement
 * arrives (the worker had time to see the request: commit interval plus consumer poll), or when
 * it is older than {@code maxAgeMs} whatever telemetry says. Pruning happens lazily on each read
 * with the snapshot's observation time, so the ledger is a pure function of the calls made to it.
 * Not thread-safe: one ledger per routing processor.
 */
public final class PendingLoadLedger {
    private final long graceMs;
    private final long maxAgeMs;
    private final Map<String, WorkerEntries> byWorker = new HashMap<>();
    private long additions;

    public PendingLoadLedger(long graceMs, long maxAgeMs) {
        if (graceMs < 0 || maxAgeMs <= 0) {
            throw new IllegalArgumentException("graceMs must be >= 0 and maxAgeMs > 0, were " + graceMs + " and " + maxAgeMs);
        }
        this.graceMs = graceMs;
        this.maxAgeMs = maxAgeMs;
    }

    /** Records a placement on {@code workerId}'s {@code partition}. */
    public void add(String workerId, int partition, long prefillTokens, long kvBlocks, long placedAtMs) {
        WorkerEntries entries = byWorker.get(workerId);
        if (entries == null) {
            entries = new WorkerEntries();
            byWorker.put(workerId, entries);
        }
        entries.add(partition, prefillTokens, kvBlocks, placedAtMs);
        additions++;
    }

    /** Placements recorded so far: {@link #pending} answers the same for the same arguments until this changes. */
    long additions() {
        return additions;
    }

    /** Pending load on a worker whose latest telemetry was observed at {@code observedAtMs}. */
    public PendingLoad pending(String workerId, long observedAtMs, long nowMs) {
        WorkerEntries entries = prune(workerId, observedAtMs, nowMs);
        return entries == null ? PendingLoad.NONE : new PendingLoad(entries.size, entries.prefillTokens, entries.kvBlocks);
    }

    /** Pending requests on one partition of a worker (after the same pruning as {@link #pending}). */
    public int pendingOnPartition(String workerId, int partition, long observedAtMs, long nowMs) {
        WorkerEntries entries = prune(workerId, observedAtMs, nowMs);
        return entries == null ? 0 : entries.onPartition(partition);
    }

    /** Number of entries held, all workers together. */
    public int size() {
        return byWorker.values().stream().mapToInt(e -> e.size).sum();
    }

    /** The worker's entries after pruning, or null if none are left. */
    private WorkerEntries prune(String workerId, long observedAtMs, long nowMs) {
        WorkerEntries entries = byWorker.get(workerId);
        if (entries == null) {
            return null;
        }
        entries.removeOlderThan(Math.max(observedAtMs - graceMs, nowMs - maxAgeMs));
        return entries.size == 0 ? null : entries;
    }

    /**
     * One worker's entries in placement order, in a ring of primitive arrays: a decision prunes every candidate's, and
     * with a deque of entry objects and a boxed count per partition that was a tenth of a decision at 1,000 workers
     * (each hop a cache miss). Kept when empty, as the worker ids of a fleet are few, its ring back to a small one.
     */
    private static final class WorkerEntries {
        /** Ring length (a power of two) a worker keeps once its entries are gone. */
        private static final int KEPT_WHEN_EMPTY = 16;
        private int[] partitions = new int[4];
        private long[] prefill = new long[4];
        private long[] blocks = new long[4];
        private long[] placedAt = new long[4];
        private int head;
        private int size;
        private long prefillTokens;
        private long kvBlocks;

        void add(int partition, long prefillTokens, long kvBlocks, long placedAtMs) {
            if (size == placedAt.length) {
                grow();
            }
            int at = (head + size) & (placedAt.length - 1);
            partitions[at] = partition;
            prefill[at] = prefillTokens;
            blocks[at] = kvBlocks;
            placedAt[at] = placedAtMs;
            size++;
            this.prefillTokens += prefillTokens;
            this.kvBlocks += kvBlocks;
        }

        void removeOlderThan(long cutoffMs) {
            // entries are in placement order; a clock stepping back only delays their removal
            int mask = placedAt.length - 1;
            while (size > 0 && placedAt[head] < cutoffMs) {
                prefillTokens -= prefill[head];
                kvBlocks -= blocks[head];
                head = (head + 1) & mask;
                size--;
            }
            if (size == 0 && placedAt.length > KEPT_WHEN_EMPTY) {
                // a burst's ring is not kept for the worker's lifetime
                partitions = new int[KEPT_WHEN_EMPTY];
                prefill = new long[KEPT_WHEN_EMPTY];
                blocks = new long[KEPT_WHEN_EMPTY];
                placedAt = new long[KEPT_WHEN_EMPTY];
                head = 0;
            }
        }

        int onPartition(int partition) {
            int count = 0;
            int mask = placedAt.length - 1;
            for (int i = 0; i < size; i++) {
                if (partitions[(head + i) & mask] == partition) {
                    count++;
                }
            }
            return count;
        }

        /** Doubles the ring (its length stays a power of two), the oldest entry first. */
        private void grow() {
            int length = placedAt.length;
            partitions = unroll(partitions, length, new int[length * 2]);
            prefill = unroll(prefill, length, new long[length * 2]);
            blocks = unroll(blocks, length, new long[length * 2]);
            placedAt = unroll(placedAt, length, new long[length * 2]);
            head = 0;
        }

        /** Copies a full ring of {@code length} slots (any primitive array) into {@code copy}, the oldest entry first. */
        private <A> A unroll(A ring, int length, A copy) {
            int first = length - head;
            System.arraycopy(ring, head, copy, 0, first);
            System.arraycopy(ring, 0, copy, first, head);
            return copy;
        }
    }
}
