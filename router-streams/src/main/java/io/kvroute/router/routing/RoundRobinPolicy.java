package io.kvroute.router.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Baseline: the next GPU slot in turn, over every (worker, partition) of the candidates sorted
 * by worker id and partition, what a plain HTTP balancer does. Blind to load and prefixes.
 */
public final class RoundRobinPolicy implements RoutingPolicy {
    public static final String NAME = "round-robin";

    private final RouterState state;
    private long turn;

    public RoundRobinPolicy(RouterState state) {
        this.state = state;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Optional<Placement> place(RouteRequest request, List<WorkerSnapshot> candidates, long nowMs) {
        List<Slot> slots = new ArrayList<>();
        for (WorkerSnapshot worker : candidates) {
            worker.ownedPartitions().stream().sorted().forEach(p -> slots.add(new Slot(worker, p)));
        }
        if (slots.isEmpty()) {
            return Optional.empty();
        }
        Slot slot = slots.get((int) Math.floorMod(turn, (long) slots.size()));
        WorkerSnapshot worker = slot.worker();
        int matched = state.matchedBlocks(worker, request);
        ScoredCandidate top = new ScoredCandidate(worker.workerId(), worker.region(), slot.partition(), 0.0,
                Map.of("slot", (double) Math.floorMod(turn, (long) slots.size())));
        return Optional.of(new Placement(worker.workerId(), worker.region(), slot.partition(), 0.0, matched, List.of(top),
                "next slot in turn (" + slots.size() + " slots)"));
    }

    @Override
    public void onPlaced(RouteRequest request, Placement placement, long nowMs) {
        turn++;
    }

    private record Slot(WorkerSnapshot worker, int partition) {
    }
}
