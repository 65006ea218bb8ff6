package io.kvroute.router.routing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Baseline from the project's brief: sort the candidates by (KV-cache usage, queue depth) as
 * their telemetry reports them and take the first. Queue depth is the worker's waiting
 * requests; further ties go to fewer running requests, then the smallest worker id. The brief's
 * policy keeps no account of its own placements, so it ignores the pending-load ledger: between
 * two telemetry records every request goes to the same worker (the herding it is measured for).
 */
public final class SeedLowestKvPolicy implements RoutingPolicy {
    public static final String NAME = "seed-lowest-kv";


    private final RouterState state;

    private final Comparator<WorkerSnapshot> order;

    public SeedLowestKvPolicy(RouterState state) {
        this.state = state;
        this.order = Comparator.comparingDouble(WorkerSnapshot::kvUsage)
                .thenComparingInt(WorkerSnapshot::waiting)
                .thenComparingInt(WorkerSnapshot::running)
                .thenComparing(WorkerSnapshot::workerId, state.tieBreak().workerIds());
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
        List<WorkerSnapshot> sorted = new ArrayList<>(candidates);
        sorted.sort(order);
        List<ScoredWorker> ranked = new ArrayList<>(sorted.size());
        for (WorkerSnapshot worker : sorted) {
            Map<String, Double> components = new LinkedHashMap<>();
            components.put("kv", worker.kvUsage());
            components.put("queue", (double) worker.waiting());
            components.put("running", (double) worker.running());
            ranked.add(new ScoredWorker(worker, worker.kvUsage(), state.matchedBlocks(worker, request), components));
        }
        WorkerSnapshot best = sorted.get(0);
        return Optional.of(ScoredWorker.placement(state, ranked, nowMs,
                String.format("lowest KV usage %.3f, queue %d", best.kvUsage(), best.waiting())));
    }
}
