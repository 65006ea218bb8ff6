package io.kvroute.router.routing;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Baseline: the worker with the fewest running + waiting requests (plus those the router placed
 * since its telemetry), as nginx {@code least_conn} or LiteLLM {@code least-busy} do. Ties go to
 * the smallest worker id.
 */
public final class LeastQueuePolicy implements RoutingPolicy {
    public static final String NAME = "least-queue";

    private final RouterState state;

    public LeastQueuePolicy(RouterState state) {
        this.state = state;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Optional<Placement> place(RouteRequest request, List<WorkerSnapshot> candidates, long nowMs) {
        WorkerSnapshot best = null;
        long bestLoad = Long.MAX_VALUE;
        for (WorkerSnapshot worker : candidates) {
            long load = (long) worker.running() + worker.waiting() + state.pending(worker, nowMs).requests();
            if (load < bestLoad || (load == bestLoad && state.tieBreak().before(worker.workerId(), best.workerId()))) {
                best = worker;
                bestLoad = load;
            }
        }
        if (best == null) {
            return Optional.empty();
        }
        int partition = state.leastPendingPartition(best, nowMs);
        int matched = state.matchedBlocks(best, request);
        ScoredCandidate top = new ScoredCandidate(best.workerId(), best.region(), partition, bestLoad, Map.of("queue", (double) bestLoad));
        return Optional.of(new Placement(best.workerId(), best.region(), partition, bestLoad, matched, List.of(top),
                "fewest queued requests (" + bestLoad + ")"));
    }
}
