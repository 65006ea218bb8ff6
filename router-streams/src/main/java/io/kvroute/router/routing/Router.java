package io.kvroute.router.routing;

import java.util.Collection;
import java.util.Optional;

/**
 * One routing step: filter the workers, let the policy place the request among the candidates,
 * account the placement (ledger, prefix index, policy state). Pure Java and single-threaded, so
 * the Streams processor and a simulator drive it the same way.
 */
public final class Router {
    private final RoutingPolicy policy;
    private final RouterState state;
    private final CandidateFilter filter;

    public Router(RoutingPolicy policy, RouterState state) {
        this.policy = policy;
        this.state = state;
        this.filter = new CandidateFilter(state);
    }

    public static Router create(String policyName, RoutingSettings settings) {
        RouterState state = new RouterState(settings);
        return new Router(Policies.create(policyName, state), state);
    }

    public RoutingPolicy policy() {
        return policy;
    }

    public RouterState state() {
        return state;
    }

    public RoutingResult route(RouteRequest request, Collection<WorkerSnapshot> workers, long nowMs) {
        CandidateSet candidates = filter.filter(request, workers, nowMs);
        String excluded = candidates.exclusionSummary();
        if (candidates.isEmpty()) {
            String reason = workers.isEmpty() ? "no worker has reported telemetry"
                    : "no candidate among " + workers.size() + " workers: " + excluded;
            return new RoutingResult(Optional.empty(), candidates, reason);
        }
        Optional<Placement> placement = policy.place(request, candidates.candidates(), nowMs);
        if (placement.isEmpty()) {
            return new RoutingResult(Optional.empty(), candidates,
                    "policy " + policy.name() + " placed nowhere among " + candidates.candidates().size() + " candidates");
        }
        Placement placed = placement.get();
        if (!excluded.isEmpty()) {
            placed = placed.withReason(placed.reason() + "; " + excluded);
        }
        WorkerSnapshot worker = candidates.candidates().stream()
                .filter(w -> w.workerId().equals(placement.get().workerId()))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("policy " + policy.name() + " placed on a non-candidate "
                        + placement.get().workerId()));
        state.recordPlacement(request, placed, worker, nowMs);
        policy.onPlaced(request, placed, nowMs);
        return new RoutingResult(Optional.of(placed), candidates, placed.reason());
    }
}
