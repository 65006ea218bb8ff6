package io.kvroute.router.routing;

/**
 * The mutable routing state shared by the filter and every policy of one router instance: the
 * pending-load ledger, the approximate prefix index (what the router itself routed where) and
 * the KV-event index (what workers report holding). Kept in memory; after a restart the ledger
 * and the approximate index start empty and refill from new decisions, the KV-event index from
 * the replayed kv-events topic.
 *
 * <p>Prefix matches come in three flavours, so each policy can see what its anchor sees:
 * {@link #routedMatch} (router-side approximation, SGLang / GIE), {@link #reportedMatch} (workers'
 * KV events, Dynamo) and {@link #matchedBlocks}, the larger of the two (kvroute: precise when
 * workers report, approximate otherwise).
 */
public final class RouterState {
    private final RoutingSettings settings;
    private final PendingLoadLedger ledger;
    private final ApproximatePrefixIndex prefixIndex;
    private final KvEventIndex kvEventIndex;
    private final RegionCatalog regions;
    private final Cooldowns cooldowns = new Cooldowns();

    public RouterState(RoutingSettings settings) {
        this(settings, new KvEventIndex(settings.kvEventIndexCapacity()));
    }

    /** A state reading an existing KV-event index (fed by another thread, or shared by several policies). */
    public RouterState(RoutingSettings settings, KvEventIndex kvEventIndex) {
        this(settings, kvEventIndex, RegionCatalog.empty());
    }

    /** A state whose placements account for the regions' delays and prices. */
    public RouterState(RoutingSettings settings, KvEventIndex kvEventIndex, RegionCatalog regions) {
        this.settings = settings;
        this.ledger = new PendingLoadLedger(settings.ledgerGraceMs(), settings.ledgerMaxAgeMs());
        this.prefixIndex = new ApproximatePrefixIndex(settings.prefixIndexCapacity());
        this.kvEventIndex = kvEventIndex;
        this.regions = regions;
    }

    /** Region delays, prices and TTFT targets ({@link RegionCatalog#empty()} unless configured). */
    public RegionCatalog regions() {
        return regions;
    }

    /** Rate-limit cool-downs learnt from responses; thread-safe. */
    public Cooldowns cooldowns() {
        return cooldowns;
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

    /** Thread-safe: written by whoever consumes KV events, read by the policies. */
    public KvEventIndex kvEventIndex() {
        return kvEventIndex;
    }

    public PendingLoad pending(WorkerSnapshot worker, long nowMs) {
        return ledger.pending(worker.workerId(), worker.observedAtMs(), nowMs);
    }

    /** Leading blocks of the request the router itself routed to the worker. */
    public int routedMatch(WorkerSnapshot worker, RouteRequest request) {
        return prefixIndex.longestMatch(worker.workerId(), request.hashes());
    }

    /** Leading blocks of the request the worker reported holding in its KV events. */
    public int reportedMatch(WorkerSnapshot worker, RouteRequest request) {
        return kvEventIndex.longestMatch(worker.workerId(), request.hashes());
    }

    /** Best estimate of the request's leading blocks cached on the worker: the larger of the two matches. */
    public int matchedBlocks(WorkerSnapshot worker, RouteRequest request) {
        return Math.max(routedMatch(worker, request), reportedMatch(worker, request));
    }

    /** Accounts a placement: its load goes to the ledger and its blocks to the prefix index. */
    public void recordPlacement(RouteRequest request, Placement placement, WorkerSnapshot worker, long nowMs) {
        int matched = matchedBlocks(worker, request);
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

    /** Requests on the worker as the router sees them: running + waiting in its telemetry + pending in the ledger. */
    public long inFlight(WorkerSnapshot worker, long nowMs) {
        return (long) worker.running() + worker.waiting() + pending(worker, nowMs).requests();
    }
}
