package io.kvroute.router.routing;

/**
 * The mutable routing state shared by the filter and every policy of one router instance: the
 * pending-load ledger and the approximate prefix index. Kept in memory; after a restart it
 * starts empty and refills from new decisions.
 */
public final class RouterState {
    private final RoutingSettings settings;
    private final PendingLoadLedger ledger;
    private final ApproximatePrefixIndex prefixIndex;

    public RouterState(RoutingSettings settings) {
        this.settings = settings;
        this.ledger = new PendingLoadLedger(settings.ledgerGraceMs(), settings.ledgerMaxAgeMs());
        this.prefixIndex = new ApproximatePrefixIndex(settings.prefixIndexCapacity());
    }

    public RoutingSettings settings() {
        return settings;
    }

    public PendingLoadLedger ledger() {
        return ledger;
    }

    public ApproximatePrefixIndex prefixIndex() {
        return prefixIndex;
    }

    public PendingLoad pending(WorkerSnapshot worker, long nowMs) {
        return ledger.pending(worker.workerId(), worker.observedAtMs(), nowMs);
    }

    public int matchedBlocks(WorkerSnapshot worker, RouteRequest request) {
        return prefixIndex.longestMatch(worker.workerId(), request.hashes());
    }

    /** Accounts a placement: its load goes to the ledger and its blocks to the prefix index. */
    public void recordPlacement(RouteRequest request, Placement placement, WorkerSnapshot worker, long nowMs) {
        int matched = prefixIndex.longestMatch(placement.workerId(), request.hashes());
        ledger.add(placement.workerId(), placement.partition(), request.uncachedTokens(matched),
                settings.kvBlocksNeeded(request, matched, worker.kvBlockTokens()), nowMs);
        prefixIndex.record(placement.workerId(), request.hashes(), nowMs);
    }

    /**
     * Among the worker's owned partitions, the one with the least pending load in the ledger
     * (lowest partition number on ties).
     */
    public int leastPendingPartition(WorkerSnapshot worker, long nowMs) {
        int best = -1;
        int bestPending = Integer.MAX_VALUE;
        for (int partition : worker.ownedPartitions()) {
            int pending = ledger.pendingOnPartition(worker.workerId(), partition, worker.observedAtMs(), nowMs);
            if (pending < bestPending || (pending == bestPending && partition < best)) {
                best = partition;
                bestPending = pending;
            }
        }
        return best;
    }
}
