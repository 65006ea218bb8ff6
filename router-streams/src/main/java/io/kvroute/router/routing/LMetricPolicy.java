package io.kvroute.router.routing;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Baseline: LMetric, the product of this request's new prefill tokens on a worker (its prompt
 * tokens not cached there, by {@link RouterState#matchedBlocks}) and the worker's batch size
 * (running + waiting requests plus the router's pending ones). Lowest product wins, no weights.
 * An idle worker scores 0 whatever its cache, so ties go to fewer new prefill tokens, then the
 * smaller worker id.
 */
public final class LMetricPolicy implements RoutingPolicy {
    public static final String NAME = "lmetric";


    private final RouterState state;

    private final Comparator<ScoredWorker> order;

    public LMetricPolicy(RouterState state) {
        this.state = state;
        this.order = Comparator.comparingDouble(ScoredWorker::score)
                .thenComparingDouble(s -> s.components().get("new_prefill_tokens"))
                .thenComparing(ScoredWorker::workerId, state.tieBreak().workerIds());
    }

    @Override
    public String name() {
        return NAME;
    }

    private ScoredWorker score(RouteRequest request, WorkerSnapshot worker, long nowMs) {
        int matched = state.matchedBlocks(worker, request);
        long newPrefill = request.uncachedTokens(matched);
        long batch = state.inFlight(worker, nowMs);
        Map<String, Double> components = new LinkedHashMap<>();
        components.put("new_prefill_tokens", (double) newPrefill);
        components.put("batch_size", (double) batch);
        return new ScoredWorker(worker, (double) newPrefill * batch, matched, components);
    }

    @Override
    public Optional<Placement> place(RouteRequest request, List<WorkerSnapshot> candidates, long nowMs) {
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        List<ScoredWorker> ranked = ScoredWorker.rank(candidates, worker -> score(request, worker, nowMs), order);
        ScoredWorker best = ranked.get(0);
        return Optional.of(ScoredWorker.placement(state, ranked, nowMs, String.format(
                "lowest new prefill x batch = %.0f x %.0f", best.components().get("new_prefill_tokens"),
                best.components().get("batch_size"))));
    }
}
