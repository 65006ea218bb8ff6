package io.kvroute.router.routing;

import java.util.Arrays;

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
 *
 * <p>Workers are indexed by their {@link WorkerIds} id. A worker's count, sums and oldest entry's time sit in flat
 * arrays: a decision reads every candidate's, and with nothing to prune it touches no per-worker object (at 1,000
 * workers the map lookup and the entries object behind it were a tenth of the routing thread, each a cache miss).
 */
public final class PendingLoadLedger {
    private final long graceMs;
    private final long maxAgeMs;
    private int[] count = new int[0];
    private long[] prefillTokens = new long[0];
    private long[] kvBlocks = new long[0];
    /** When the worker's oldest entry (its ring's head) was placed; read only while its count is above 0. */
    private long[] oldestPlacedAtMs = new long[0];
    private Ring[] rings = new Ring[0];
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
        add(WorkerIds.of(workerId), partition, prefillTokens, kvBlocks, placedAtMs);
    }

    /** As {@link #add(String, int, long, long, long)}, for the worker whose {@link WorkerIds} id is {@code worker}. */
    void add(int worker, int partition, long prefill, long blocks, long placedAtMs) {
        if (worker >= count.length) {
            grow(worker);
        }
        Ring ring = rings[worker];
        if (ring == null) {
            ring = new Ring();
            rings[worker] = ring;
        }
        if (count[worker] == 0) {
            oldestPlacedAtMs[worker] = placedAtMs;
        }
        ring.add(count[worker], partition, prefill, blocks, placedAtMs);
        count[worker]++;
        prefillTokens[worker] += prefill;
        kvBlocks[worker] += blocks;
        additions++;
    }

    /** Placements recorded so far: {@link #pending} answers the same for the same arguments until this changes. */
    long additions() {
        return additions;
    }

    /** Pending load on a worker whose latest telemetry was observed at {@code observedAtMs}. */
    public PendingLoad pending(String workerId, long observedAtMs, long nowMs) {
        return pending(WorkerIds.find(workerId), observedAtMs, nowMs);
    }

    /** As {@link #pending(String, long, long)}, for the worker whose {@link WorkerIds} id is {@code worker} (-1: none). */
    PendingLoad pending(int worker, long observedAtMs, long nowMs) {
        return prune(worker, observedAtMs, nowMs)
                ? new PendingLoad(count[worker], prefillTokens[worker], kvBlocks[worker]) : PendingLoad.NONE;
    }

    /** Pending requests on one partition of a worker (after the same pruning as {@link #pending}). */
    public int pendingOnPartition(String workerId, int partition, long observedAtMs, long nowMs) {
        return pendingOnPartition(WorkerIds.find(workerId), partition, observedAtMs, nowMs);
    }

    int pendingOnPartition(int worker, int partition, long observedAtMs, long nowMs) {
        return prune(worker, observedAtMs, nowMs) ? rings[worker].onPartition(count[worker], partition) : 0;
    }

    /** Number of entries held, all workers together. */
    public int size() {
        return Arrays.stream(count).sum();
    }

    /** Prunes the worker's entries; whether any are left. */
    private boolean prune(int worker, long observedAtMs, long nowMs) {
        if (worker < 0 || worker >= count.length || count[worker] == 0) {
            return false;
        }
        long cutoffMs = Math.max(observedAtMs - graceMs, nowMs - maxAgeMs);
        if (oldestPlacedAtMs[worker] >= cutoffMs) {
            return true;
        }
        // entries are in placement order; a clock stepping back only delays their removal
        Ring ring = rings[worker];
        int left = count[worker];
        while (left > 0 && ring.placedAt[ring.head] < cutoffMs) {
            prefillTokens[worker] -= ring.prefill[ring.head];
            kvBlocks[worker] -= ring.blocks[ring.head];
            ring.dropHead();
            left--;
        }
        count[worker] = left;
        if (left == 0) {
            ring.shrink();
            return false;
        }
        oldestPlacedAtMs[worker] = ring.placedAt[ring.head];
        return true;
    }

    private void grow(int worker) {
        int length = Math.max(worker + 1, Math.max(16, count.length * 2));
        count = Arrays.copyOf(count, length);
        prefillTokens = Arrays.copyOf(prefillTokens, length);
        kvBlocks = Arrays.copyOf(kvBlocks, length);
        oldestPlacedAtMs = Arrays.copyOf(oldestPlacedAtMs, length);
        rings = Arrays.copyOf(rings, length);
    }

    /**
     * One worker's entries in placement order, in a ring of primitive arrays (no entry objects). Its length is kept by
     * the ledger's count. Kept when empty, as the worker ids of a fleet are few, its arrays back to a small size.
     */
    private static final class Ring {
        /** Ring length (a power of two) a worker keeps once its entries are gone. */
        private static final int KEPT_WHEN_EMPTY = 16;
        private int[] partitions = new int[4];
        private long[] prefill = new long[4];
        private long[] blocks = new long[4];
        private long[] placedAt = new long[4];
        private int head;

        void add(int size, int partition, long prefillTokens, long kvBlocks, long placedAtMs) {
            if (size == placedAt.length) {
                grow();
            }
            int at = (head + size) & (placedAt.length - 1);
            partitions[at] = partition;
            prefill[at] = prefillTokens;
            blocks[at] = kvBlocks;
            placedAt[at] = placedAtMs;
        }

        void dropHead() {
            head = (head + 1) & (placedAt.length - 1);
        }

        /** Called once the ring is empty: a burst's arrays are not kept for the worker's lifetime. */
        void shrink() {
            if (placedAt.length > KEPT_WHEN_EMPTY) {
                partitions = new int[KEPT_WHEN_EMPTY];
                prefill = new long[KEPT_WHEN_EMPTY];
                blocks = new long[KEPT_WHEN_EMPTY];
                placedAt = new long[KEPT_WHEN_EMPTY];
            }
            head = 0;
        }

        int onPartition(int size, int partition) {
            int n = 0;
            int mask = placedAt.length - 1;
            for (int i = 0; i < size; i++) {
                if (partitions[(head + i) & mask] == partition) {
                    n++;
                }
            }
            return n;
        }

        /** Doubles the full ring (its length stays a power of two), the oldest entry first. */
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
