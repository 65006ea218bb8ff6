package io.kvroute.router.routing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * kvroute's own policy: the candidate with the lowest estimated time to first token wins.
 *
 * <pre>
 * queue_ms       = prefill time of the queued and pending uncached tokens ahead of it ({@link TtftModel})
 * prefill_ms     = prefill time of this request's tokens NOT cached on that worker, attending to the cached ones
 * decode_ms      = steps until its first token * the decode work each of those steps carries
 *                  (decoding sequences and the context they hold in KV)
 * batch_ms       = requests beyond the batch limit * per-request slot wait
 * kv_penalty     = large when the request would push KV usage past the headroom
 * replication_ms = prefill time of the prefix tokens another candidate holds and this one does not
 *                  (copying a prefix evicts someone else's; a hot prefix still replicates when its
 *                  holder's queue costs more than this)
 * network_ms     = the region's round trip ({@link RegionCatalog#delayMs}, 0 for a region not in the catalog)
 * score          = sum of the above
 * </pre>
 *
 * When the {@link RegionCatalog} prices regions differently, the winner is instead the candidate
 * in the cheapest region whose score meets the request's TTFT target ({@link LatencyClass}), the
 * lowest score within that region; when no candidate meets it, the lowest score (spill-over).
 *
 * Cached prefix blocks are the larger of what workers report in their KV events ({@link KvEventIndex},
 * precise) and what the router itself placed there ({@link ApproximatePrefixIndex}, covering
 * workers that do not report and events still in flight): {@link RouterState#matchedBlocks};
 * pending load from the {@link PendingLoadLedger}, so a burst spreads instead of herding. Ties go
 * to the lexicographically smallest worker id; the partition is the worker's least pending one.
 */
public final class KvAwarePolicy implements RoutingPolicy {
    public static final String NAME = "kvroute";
    /** Wait per request queued beyond the batch limit, about one completion's share of a slot. */
    static final double SLOT_WAIT_MS = 25.0;
    static final double KV_PENALTY_MS = 10_000.0;
    /**
     * Share of a duplicated prefix's recompute time charged to a non-holder: 1.0 charges it once
     * more, for the prefix of someone else that the copy will evict.
     */
    static final double DUPLICATION_WEIGHT = 1.0;
    static final int TOP_CANDIDATES = 3;

    private final RouterState state;
    private final TtftModel model;

    public KvAwarePolicy(RouterState state) {
        this(state, TtftModel.LLAMA_8B_H100);
    }

    public KvAwarePolicy(RouterState state, TtftModel model) {
        this.state = state;
        this.model = model;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Optional<Placement> place(RouteRequest request, List<WorkerSnapshot> candidates, long nowMs) {
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        int[] matched = new int[candidates.size()];
        int bestMatch = 0;
        for (int i = 0; i < matched.length; i++) {
            matched[i] = state.matchedBlocks(candidates.get(i), request);
            bestMatch = Math.max(bestMatch, matched[i]);
        }
        // Keep only the best few: the decision record shows them, and nothing else needs a sort.
        Estimate[] top = new Estimate[Math.min(TOP_CANDIDATES, candidates.size())];
        RegionCatalog regions = state.regions();
        boolean byPrice = regions.pricesDiffer();
        long targetMs = regions.ttftTargetMs(LatencyClass.of(request));
        Estimate cheapest = null;
        for (int i = 0; i < matched.length; i++) {
            Estimate e = estimate(request, candidates.get(i), matched[i], bestMatch, nowMs);
            insert(top, e);
            if (byPrice && e.score() <= targetMs && (cheapest == null || cheaper(e, cheapest, regions))) {
                cheapest = e;
            }
        }
        Estimate best = cheapest != null ? cheapest : top[0];
        int partition = state.leastPendingPartition(best.worker(), nowMs);
        List<ScoredCandidate> shown = new ArrayList<>(top.length + 1);
        shown.add(new ScoredCandidate(best.worker().workerId(), best.worker().region(), partition, best.score(), best.components()));
        for (Estimate e : top) {
            if (e != best && shown.size() < top.length) {
                shown.add(new ScoredCandidate(e.worker().workerId(), e.worker().region(), e.worker().ownedPartitions().get(0),
                        e.score(), e.components()));
            }
        }
        String reason = cheapest != null
                ? "cheapest region " + best.worker().region() + " meeting the " + targetMs + " ms TTFT target: estimated TTFT "
                        + Math.round(best.score()) + " ms; " + best.matched() + " prefix blocks cached"
                : (byPrice ? "no region meets the " + targetMs + " ms TTFT target; " : "")
                        + "lowest estimated TTFT " + Math.round(best.score()) + " ms; " + best.matched() + " prefix blocks cached";
        return Optional.of(new Placement(best.worker().workerId(), best.worker().region(), partition, best.score(),
                best.matched(), shown, reason));
    }

    /** Cheaper region first, then the lower estimate, then the smaller worker id. */
    private static boolean cheaper(Estimate e, Estimate other, RegionCatalog regions) {
        int byCost = Double.compare(regions.costPerMillionTokens(e.worker().region()),
                regions.costPerMillionTokens(other.worker().region()));
        return byCost < 0 || (byCost == 0 && e.before(other));
    }

    /** Inserts {@code e} into the ascending array {@code top} if it ranks (score, then worker id) among its entries. */
    private static void insert(Estimate[] top, Estimate e) {
        int i = top.length - 1;
        if (top[i] != null && !e.before(top[i])) {
            return;
        }
        while (i > 0 && (top[i - 1] == null || e.before(top[i - 1]))) {
            top[i] = top[i - 1];
            i--;
        }
        top[i] = e;
    }

    Estimate estimate(RouteRequest request, WorkerSnapshot worker, int matched, int bestMatch, long nowMs) {
        RoutingSettings settings = state.settings();
        PendingLoad pending = state.pending(worker, nowMs);
        int cached = request.cachedTokens(matched);
        int uncached = request.uncachedTokens(matched);
        long queuedTokens = worker.queuedPrefillTokens() + pending.prefillTokens();
        int queuedRequests = Math.max(1, worker.waiting() + worker.runningPrefill() + pending.requests());
        double queueMs = model.queuedPrefillMs(queuedTokens, (double) queuedTokens / queuedRequests);
        double prefillMs = model.prefillMs(uncached, cached);
        long steps = model.steps(queuedTokens + uncached);
        long contextTokens = worker.kvBlocksUsed() * worker.kvBlockTokens();
        double decodeMs = steps * model.decodeMsPerStep(worker.runningDecode() + pending.requests(), contextTokens);
        long ahead = (long) worker.running() + worker.waiting() + pending.requests();
        double batchMs = Math.max(0, ahead + 1 - worker.maxRunning()) * SLOT_WAIT_MS;
        double kvAfter = CandidateFilter.kvUsageWith(worker,
                pending.kvBlocks() + settings.kvBlocksNeeded(request, matched, worker.kvBlockTokens()));
        double kvPenaltyMs = kvAfter > settings.kvHeadroom() ? KV_PENALTY_MS * (1 + kvAfter - settings.kvHeadroom()) : 0.0;
        // Copying a prefix another worker already holds costs cache space that evicts someone
        // else's prefix: charge a share of recomputing it, so replication happens only when the
        // holder's queue outweighs it.
        int duplicated = request.cachedTokens(bestMatch) - cached;
        double replicationMs = duplicated > 0 ? DUPLICATION_WEIGHT * model.prefillMs(duplicated, 0) : 0.0;
        double networkMs = 2.0 * state.regions().delayMs(worker.region());
        return new Estimate(worker, matched, pending.requests(), queueMs, prefillMs, decodeMs, batchMs, kvAfter, kvPenaltyMs,
                replicationMs, networkMs);
    }

    /** One candidate's estimated TTFT, by component. */
    record Estimate(WorkerSnapshot worker, int matched, int pendingRequests, double queueMs, double prefillMs, double decodeMs,
                    double batchMs, double kvAfter, double kvPenaltyMs, double replicationMs, double networkMs) {
        double score() {
            return queueMs + prefillMs + decodeMs + batchMs + kvPenaltyMs + replicationMs + networkMs;
        }

        boolean before(Estimate other) {
            int byScore = Double.compare(score(), other.score());
            return byScore < 0 || (byScore == 0 && worker.workerId().compareTo(other.worker.workerId()) < 0);
        }

        Map<String, Double> components() {
            Map<String, Double> components = new LinkedHashMap<>();
            components.put("queue_ms", queueMs);
            components.put("prefill_ms", prefillMs);
            components.put("decode_ms", decodeMs);
            components.put("batch_ms", batchMs);
            components.put("replication_ms", replicationMs);
            components.put("network_ms", networkMs);
            components.put("kv", kvAfter);
            components.put("kv_penalty_ms", kvPenaltyMs);
            components.put("prefix_blocks", (double) matched);
            components.put("pending_requests", (double) pendingRequests);
            return components;
        }
    }
}
