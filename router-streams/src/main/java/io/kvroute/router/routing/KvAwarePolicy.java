package io.kvroute.router.routing;

import java.util.ArrayList;
import java.util.Comparator;
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
 * score          = sum of the above
 * </pre>
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
        int bestMatch = 0;
        for (WorkerSnapshot worker : candidates) {
            bestMatch = Math.max(bestMatch, state.matchedBlocks(worker, request));
        }
        List<Scored> scored = new ArrayList<>(candidates.size());
        for (WorkerSnapshot worker : candidates) {
            scored.add(score(request, worker, bestMatch, nowMs));
        }
        if (scored.isEmpty()) {
            return Optional.empty();
        }
        scored.sort(Comparator.comparingDouble(Scored::score).thenComparing(s -> s.worker().workerId()));
        Scored best = scored.get(0);
        int partition = state.leastPendingPartition(best.worker(), nowMs);
        List<ScoredCandidate> top = new ArrayList<>();
        for (Scored s : scored.subList(0, Math.min(TOP_CANDIDATES, scored.size()))) {
            int p = s == best ? partition : s.worker().ownedPartitions().get(0);
            top.add(new ScoredCandidate(s.worker().workerId(), s.worker().region(), p, s.score(), s.components()));
        }
        String reason = String.format("lowest estimated TTFT %.0f ms; %d prefix blocks cached", best.score(), best.matched());
        return Optional.of(new Placement(best.worker().workerId(), best.worker().region(), partition, best.score(),
                best.matched(), top, reason));
    }

    Scored score(RouteRequest request, WorkerSnapshot worker, int bestMatch, long nowMs) {
        RoutingSettings settings = state.settings();
        PendingLoad pending = state.pending(worker, nowMs);
        int matched = state.matchedBlocks(worker, request);
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
        double score = queueMs + prefillMs + decodeMs + batchMs + kvPenaltyMs + replicationMs;
        Map<String, Double> components = new LinkedHashMap<>();
        components.put("queue_ms", queueMs);
        components.put("prefill_ms", prefillMs);
        components.put("decode_ms", decodeMs);
        components.put("batch_ms", batchMs);
        components.put("replication_ms", replicationMs);
        components.put("kv", kvAfter);
        components.put("kv_penalty_ms", kvPenaltyMs);
        components.put("prefix_blocks", (double) matched);
        components.put("pending_requests", (double) pending.requests());
        return new Scored(worker, score, matched, components);
    }

    record Scored(WorkerSnapshot worker, double score, int matched, Map<String, Double> components) {
    }
}
