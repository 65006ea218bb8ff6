package io.kvroute.router.routing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Baseline: the Gateway API Inference Extension endpoint picker with its default scorer weights.
 *
 * <pre>
 * queue  = (maxQ − q) / (maxQ − minQ), 1 when all q are equal; q = waiting requests + the router's pending ones
 * kv     = 1 − KV-cache usage (as reported)
 * prefix = leading matched blocks / prompt blocks, in the router-side index of what it routed where
 * score  = 2·queue + 2·kv + 3·prefix; highest wins
 * </pre>
 *
 * The prefix index is the router's shared LRU of (block, worker) pairs ({@link ApproximatePrefixIndex})
 * rather than one LRU per worker. Ties go to the smallest worker id (the picker breaks them at random).
 */
public final class GieWeightedPolicy implements RoutingPolicy {
    public static final String NAME = "gie-weighted";
    public static final double QUEUE_WEIGHT = 2.0;
    public static final double KV_WEIGHT = 2.0;
    public static final double PREFIX_WEIGHT = 3.0;

    private final RouterState state;
    private final Comparator<ScoredWorker> order;

    public GieWeightedPolicy(RouterState state) {
        this.state = state;
        this.order = ScoredWorker.highestFirst(state.tieBreak());
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
        long[] queues = new long[candidates.size()];
        long minQ = Long.MAX_VALUE;
        long maxQ = Long.MIN_VALUE;
        for (int i = 0; i < queues.length; i++) {
            WorkerSnapshot worker = candidates.get(i);
            queues[i] = worker.waiting() + state.pending(worker, nowMs).requests();
            minQ = Math.min(minQ, queues[i]);
            maxQ = Math.max(maxQ, queues[i]);
        }
        int blocks = request.promptBlocks();
        List<ScoredWorker> ranked = new ArrayList<>(candidates.size());
        for (int i = 0; i < queues.length; i++) {
            WorkerSnapshot worker = candidates.get(i);
            double queue = maxQ == minQ ? 1.0 : (double) (maxQ - queues[i]) / (maxQ - minQ);
            double kv = 1.0 - Math.min(1.0, Math.max(0.0, worker.kvUsage()));
            int matched = state.routedMatch(worker, request);
            double prefix = blocks == 0 ? 0.0 : (double) matched / blocks;
            double score = QUEUE_WEIGHT * queue + KV_WEIGHT * kv + PREFIX_WEIGHT * prefix;
            Map<String, Double> components = new LinkedHashMap<>();
            components.put("queue", queue);
            components.put("kv", kv);
            components.put("prefix", prefix);
            components.put("queue_depth", (double) queues[i]);
            ranked.add(new ScoredWorker(worker, score, matched, components));
        }
        ranked.sort(order);
        ScoredWorker best = ranked.get(0);
        return Optional.of(ScoredWorker.placement(state, ranked, nowMs, String.format(
                "highest weighted score %.3f (queue %.2f, kv %.2f, prefix %.2f)", best.score(),
                best.components().get("queue"), best.components().get("kv"), best.components().get("prefix"))));
    }
}
