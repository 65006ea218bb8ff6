package io.kvroute.router.routing;

import java.util.ArrayDeque;
import java.util.Deque;
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
        byWorker.computeIfAbsent(workerId, w -> new WorkerEntries()).add(new Entry(partition, prefillTokens, kvBlocks, placedAtMs));
        additions++;
    }

    /** Placements recorded so far: {@link #pending} answers the same for the same arguments until this changes. */
    long additions() {
        return additions;
    }

    /** Pending load on a worker whose latest telemetry was observed at {@code observedAtMs}. */
    public PendingLoad pending(String workerId, long observedAtMs, long nowMs) {
        WorkerEntries entries = prune(workerId, observedAtMs, nowMs);
        return entries == null ? PendingLoad.NONE : new PendingLoad(entries.entries.size(), entries.prefillTokens, entries.kvBlocks);
    }

    /** Pending requests on one partition of a worker (after the same pruning as {@link #pending}). */
    public int pendingOnPartition(String workerId, int partition, long observedAtMs, long nowMs) {
        WorkerEntries entries = prune(workerId, observedAtMs, nowMs);
        return entries == null ? 0 : entries.perPartition.getOrDefault(partition, 0);
    }

    /** Number of entries held, all workers together. */
    public int size() {
        return byWorker.values().stream().mapToInt(e -> e.entries.size()).sum();
    }

    private WorkerEntries prune(String workerId, long observedAtMs, long nowMs) {
        WorkerEntries entries = byWorker.get(workerId);
        if (entries == null) {
            return null;
        }
        long cutoff = Math.max(observedAtMs - graceMs, nowMs - maxAgeMs);
        entries.removeOlderThan(cutoff);
        if (entries.entries.isEmpty()) {
            byWorker.remove(workerId);
            return null;
        }
        return entries;
    }

    private record Entry(int partition, long prefillTokens, long kvBlocks, long placedAtMs) {
    }

    private static final class WorkerEntries {
        private final Deque<Entry> entries = new ArrayDeque<>();
        private final Map<Integer, Integer> perPartition = new HashMap<>();
        private long prefillTokens;
        private long kvBlocks;

        void add(Entry entry) {
            entries.addLast(entry);
            perPartition.merge(entry.partition(), 1, Integer::sum);
            prefillTokens += entry.prefillTokens();
            kvBlocks += entry.kvBlocks();
        }

        void removeOlderThan(long cutoffMs) {
            // entries are in placement order; a clock stepping back only delays their removal
            while (!entries.isEmpty() && entries.peekFirst().placedAtMs() < cutoffMs) {
                Entry removed = entries.removeFirst();
                perPartition.computeIfPresent(removed.partition(), (p, n) -> n == 1 ? null : n - 1);
                prefillTokens -= removed.prefillTokens();
                kvBlocks -= removed.kvBlocks();
            }
        }
    }
}
