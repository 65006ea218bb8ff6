package io.kvroute.router.routing;

import java.util.Arrays;

/**
 * The mutable routing state shared by the filter and every policy of one router instance: the
 * pending-load ledger, the approximate prefix index (what the router itself routed where) and
 * the KV-event index (what workers report holding). Kept in memory; after a restart the ledger
 * and the approximate index start empty and refill from new decisions, the KV-event index from
 * the replayed kv-events topic.
 *
 * <p>Prefix matches come in four flavours, so each policy can see what its anchor sees:
 * {@link #routedMatch} (router-side approximation, SGLang / GIE), {@link #reportedMatch} (workers'
 * KV events, Dynamo), {@link #matchedBlocks}, the larger of the two (the other baselines), and
 * {@link #cachedBlocks} (kvroute: the workers' events, and the router's own claims only while
 * those events may still be in flight).
 */
public final class RouterState {
    private final RoutingSettings settings;
    private final PendingLoadLedger ledger;
    private final ApproximatePrefixIndex prefixIndex;
    private final KvEventIndex kvEventIndex;
    private final RegionCatalog regions;
    private final TieBreak tieBreak;
    private final Cooldowns cooldowns = new Cooldowns();
    private final OutputLengths outputLengths = new OutputLengths();
    private final EngineSpeeds engineSpeeds;
    /**
     * Pending load per snapshot instance (by its worker's dense id) at {@link #pendingAtMs}, while the ledger has had
     * no new placement: a decision reads each candidate's twice (filter, then policy). An entry is current when its
     * stamp is {@link #pendingStamp}.
     */
    private PendingLoad[] pendingOfDecision = new PendingLoad[0];
    private WorkerSnapshot[] pendingSnapshot = new WorkerSnapshot[0];
    private int[] pendingStamps = new int[0];
    private int pendingStamp;
    private long pendingAtMs = Long.MIN_VALUE;
    private long pendingAdditions = -1;

    public RouterState(RoutingSettings settings) {
        this(settings, new KvEventIndex(settings.kvEventIndexCapacity()));
    }

    /** A state reading an existing KV-event index (fed by another thread, or shared by several policies). */
    public RouterState(RoutingSettings settings, KvEventIndex kvEventIndex) {
        this(settings, kvEventIndex, RegionCatalog.empty());
    }

    /** A state whose placements account for the regions' delays and prices. */
    public RouterState(RoutingSettings settings, KvEventIndex kvEventIndex, RegionCatalog regions) {
        this(settings, kvEventIndex, regions, TieBreak.BY_ID);
    }

    /** As {@link #RouterState(RoutingSettings, KvEventIndex, RegionCatalog)}; the policies break ties by {@code tieBreak}. */
    public RouterState(RoutingSettings settings, KvEventIndex kvEventIndex, RegionCatalog regions, TieBreak tieBreak) {
        this.tieBreak = tieBreak;
        this.settings = settings;
        this.ledger = new PendingLoadLedger(settings.ledgerGraceMs(), settings.ledgerMaxAgeMs());
        this.prefixIndex = new ApproximatePrefixIndex(settings.prefixIndexCapacity());
        this.kvEventIndex = kvEventIndex;
        this.regions = regions;
        this.engineSpeeds = new EngineSpeeds(settings.engineModel(), settings.prefillTokensPerSecond());
    }

    /** Each pool's engine speed, learnt from finished runs; thread-safe. */
    public EngineSpeeds engineSpeeds() {
        return engineSpeeds;
    }

    /** Region delays, prices and TTFT targets ({@link RegionCatalog#empty()} unless configured). */
    public RegionCatalog regions() {
        return regions;
    }

    /** Rate-limit cool-downs learnt from responses; thread-safe. */
    public Cooldowns cooldowns() {
        return cooldowns;
    }

    /** How long finished requests' answers were; thread-safe. */
    public OutputLengths outputLengths() {
        return outputLengths;
    }

    public RoutingSettings settings() {
        return settings;
    }

    /** How this instance's policies order workers whose scores tie. */
    public TieBreak tieBreak() {
        return tieBreak;
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
        if (nowMs != pendingAtMs || ledger.additions() != pendingAdditions) {
            if (++pendingStamp == Integer.MAX_VALUE) {
                Arrays.fill(pendingStamps, 0);
                pendingStamp = 1;
            }
            pendingAtMs = nowMs;
            pendingAdditions = ledger.additions();
        }
        int id = worker.denseId();
        if (id >= pendingStamps.length) {
            int length = Math.max(id + 1, Math.max(16, pendingStamps.length * 2));
            pendingStamps = Arrays.copyOf(pendingStamps, length);
            pendingOfDecision = Arrays.copyOf(pendingOfDecision, length);
            pendingSnapshot = Arrays.copyOf(pendingSnapshot, length);
        }
        if (pendingStamps[id] == pendingStamp && pendingSnapshot[id] == worker) {
            return pendingOfDecision[id];
        }
        PendingLoad pending = ledger.pending(id, worker.observedAtMs(), nowMs);
        pendingStamps[id] = pendingStamp;
        pendingSnapshot[id] = worker;
        pendingOfDecision[id] = pending;
        return pending;
    }

    /** Leading blocks of the request the router itself routed to the worker. */
    public int routedMatch(WorkerSnapshot worker, RouteRequest request) {
        return prefixIndex.longestMatch(worker.workerId(), request.hashes());
    }

    /** Leading blocks of the request the worker reported holding in its KV events. */
    public int reportedMatch(WorkerSnapshot worker, RouteRequest request) {
        return kvEventIndex.longestMatch(worker.workerId(), request.hashes());
    }

    /**
     * Leading blocks of the request the router itself routed to the worker within the last
     * {@code ttlMs} (each block counted from its latest routing there): the router's own record
     * with entries expiring a time to live after they were last routed (Dynamo's approximate mode).
     */
    public int routedMatchWithin(WorkerSnapshot worker, RouteRequest request, long nowMs, long ttlMs) {
        int routed = routedMatch(worker, request);
        return routed == 0 ? 0 : prefixIndex.routedSinceMatch(worker.workerId(), request.hashes(), routed, nowMs - ttlMs);
    }

    /** The larger of the two matches: a claim of the router's counts until the index evicts it, even after the worker has. */
    public int matchedBlocks(WorkerSnapshot worker, RouteRequest request) {
        return Math.max(routedMatch(worker, request), reportedMatch(worker, request));
    }

    /**
     * kvroute's estimate of the request's leading blocks cached on the worker. For a worker whose
     * whole cache the KV-event index holds ({@link KvEventIndex#complete}), the router's own claims
     * count only while still trusted ({@link #claimTrustMs}): after that the worker's events decide,
     * so a prefix it has evicted is no longer taken as cached. Otherwise (no events, a gap, stores
     * dropped for the index's capacity) the larger of the two matches.
     */
    public int cachedBlocks(WorkerSnapshot worker, RouteRequest request, long nowMs) {
        int reported = reportedMatch(worker, request);
        int routed = routedMatch(worker, request);
        if (routed <= reported || !kvEventIndex.complete(worker.workerId())) {
            return Math.max(routed, reported);
        }
        return Math.max(reported, prefixIndex.trustedMatch(worker.workerId(), request.hashes(), routed, nowMs));
    }

    /**
     * Of the request's first {@code matched} blocks, those the worker reported holding only in host
     * memory; blocks the router counts from its own placements are taken as in GPU memory.
     */
    public int hostOnlyBlocks(WorkerSnapshot worker, RouteRequest request, int matched) {
        return matched <= 0 ? 0 : kvEventIndex.hostOnlyBlocks(worker.workerId(), request.hashes(), matched);
    }

    /**
     * How long the router's claim that a worker holds a placed request's blocks is trusted over
     * what the worker reports: the ledger's max age (how long telemetry may lag a placement) plus
     * the prefill of its {@code uncachedTokens} at the assumed prefill rate (the blocks are stored,
     * and reported, only once computed).
     */
    public long claimTrustMs(int uncachedTokens) {
        return settings.ledgerMaxAgeMs() + (long) (uncachedTokens * 1000.0 / settings.prefillTokensPerSecond());
    }

    /**
     * Accounts a placement: its load goes to the ledger (its uncached part by {@link #cachedBlocks},
     * whichever policy placed it, so no policy's pending load counts a stale claim as cached) and its
     * blocks to the prefix index.
     */
    public void recordPlacement(RouteRequest request, Placement placement, WorkerSnapshot worker, long nowMs) {
        recordPlacement(request, placement.partition(), worker, nowMs);
    }

    /** As {@link #recordPlacement(RouteRequest, Placement, WorkerSnapshot, long)}, on {@code worker}'s {@code partition}. */
    public void recordPlacement(RouteRequest request, int partition, WorkerSnapshot worker, long nowMs) {
        int matched = cachedBlocks(worker, request, nowMs);
        ledger.add(worker.denseId(), partition, request.uncachedTokens(matched),
                settings.kvBlocksNeeded(request, matched, worker.kvBlockTokens()), nowMs);
        prefixIndex.record(worker.workerId(), request.hashes(), nowMs, nowMs + claimTrustMs(request.uncachedTokens(matched)));
    }

    /**
     * Among the worker's owned partitions, the one with the least pending load in the ledger
     * (lowest partition number on ties).
     */
    public int leastPendingPartition(WorkerSnapshot worker, long nowMs) {
        int best = -1;
        int bestPending = Integer.MAX_VALUE;
        for (int partition : worker.ownedPartitions()) {
            int pending = ledger.pendingOnPartition(worker.denseId(), partition, worker.observedAtMs(), nowMs);
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
