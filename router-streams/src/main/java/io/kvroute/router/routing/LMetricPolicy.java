package io.kvroute.router.routing;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Baseline: LMetric as SGLang's model gateway ports it ({@code sgl-model-gateway/src/policies/lmetric.rs}):
 * score = this request's new prefill tokens on a worker (its prompt tokens not cached there, by
 * {@link RouterState#matchedBlocks}) × (the worker's batch size + 1), the batch being running +
 * waiting requests plus the router's pending ones. Lowest score wins, no weights. The + 1 keeps the
 * cache in the product on an idle worker: an idle worker holding the prompt beats an idle cold one
 * (a bare product would score both 0). Ties go, as in the port, to the smaller batch, then fewer new
 * prefill tokens, then the instance's tie-break order.
 */
public final class LMetricPolicy implements RoutingPolicy {
    public static final String NAME = "lmetric";


    private final RouterState state;

    private final Comparator<ScoredWorker> order;

    public LMetricPolicy(RouterState state) {
        this.state = state;
        this.order = Comparator.comparingDouble(ScoredWorker::score)
                .thenComparingDouble(s -> s.components().get("batch_size"))
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
        return new ScoredWorker(worker, (double) newPrefill * (batch + 1), matched, components);
    }

    @Override
    public Optional<Placement> place(RouteRequest request, List<WorkerSnapshot> candidates, long nowMs) {
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        List<ScoredWorker> ranked = ScoredWorker.rank(candidates, worker -> score(request, worker, nowMs), order);
        ScoredWorker best = ranked.get(0);
        return Optional.of(ScoredWorker.placement(state, ranked, nowMs, String.format(
                "lowest new prefill x (batch + 1) = %.0f x (%.0f + 1)", best.components().get("new_prefill_tokens"),
                best.components().get("batch_size"))));
    }
}
