package io.kvroute.router.routing;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Baseline: NVIDIA Dynamo's KV router cost at temperature 0, in blocks of the request's
 * {@code blockTokens} tokens.
 *
 * <pre>
 * prefill_blocks = (this prompt's tokens not cached on the worker
 *                   + the worker's queued prefill tokens + the router's pending prefill tokens) / block
 * decode_blocks  = (the worker's used KV blocks + the router's pending KV blocks) in the same block size
 * cost           = {@value #OVERLAP_WEIGHT} · prefill_blocks + decode_blocks; lowest wins
 * </pre>
 *
 * Cached blocks come only from the workers' KV events ({@link KvEventIndex}), never from the
 * router's own decisions. Dynamo tracks the active blocks of the sequences it routed itself; here
 * that is the worker's telemetry plus the pending-load ledger. Ties go to the smallest worker id.
 */
public final class DynamoKvPolicy implements RoutingPolicy {
    public static final String NAME = "dynamo-kv";
    public static final double OVERLAP_WEIGHT = 1.0;

    private final RouterState state;
    private final Comparator<ScoredWorker> order;

    public DynamoKvPolicy(RouterState state) {
        this.state = state;
        this.order = ScoredWorker.lowestFirst(state.tieBreak());
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
        List<ScoredWorker> ranked = ScoredWorker.rank(candidates, worker -> score(request, worker, nowMs), order);
        ScoredWorker best = ranked.get(0);
        return Optional.of(ScoredWorker.placement(state, ranked, nowMs, String.format(
                "lowest KV cost %.1f blocks; %d prefix blocks reported cached", best.score(), best.matched())));
    }

    ScoredWorker score(RouteRequest request, WorkerSnapshot worker, long nowMs) {
        double block = request.blockTokens();
        PendingLoad pending = state.pending(worker, nowMs);
        int overlap = state.reportedMatch(worker, request);
        double newPrefillBlocks = request.uncachedTokens(overlap) / block;
        double activePrefillBlocks = (worker.queuedPrefillTokens() + pending.prefillTokens()) / block;
        double decodeBlocks = (double) (worker.kvBlocksUsed() + pending.kvBlocks()) * worker.kvBlockTokens() / block;
        double prefillBlocks = newPrefillBlocks + activePrefillBlocks;
        double cost = OVERLAP_WEIGHT * prefillBlocks + decodeBlocks;
        Map<String, Double> components = new LinkedHashMap<>();
        components.put("prefill_blocks", prefillBlocks);
        components.put("new_prefill_blocks", newPrefillBlocks);
        components.put("active_prefill_blocks", activePrefillBlocks);
        components.put("decode_blocks", decodeBlocks);
        components.put("overlap_blocks", (double) overlap);
        return new ScoredWorker(worker, cost, overlap, components);
    }
}
