package io.kvroute.router.routing;

import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One routing step: filter the workers, let the policy place the request among the candidates,
 * account the placement (ledger, prefix index, policy state). Pure Java and single-threaded, so
 * the Streams processor and a simulator drive it the same way.
 *
 * <p>A fleet of at most {@link RoutingSettings#candidateSampleSize()} workers is filtered and
 * scored whole. In a larger {@link FleetView} a decision evaluates only the workers eligible for
 * the request's model and regions, and when those are still more than the sample size, only the
 * workers holding its leading blocks plus a seeded sample of the rest ({@link CandidateSampler});
 * if none of them can take the request, the sample is extended until one can or the eligible
 * workers run out. Exclusions are then counted among the workers evaluated (model and region
 * exclusions for the whole fleet). Either way the holders of the request's blocks are fetched
 * once per decision from both prefix indices, so matching a candidate does not probe the tables.
 * A candidate that does not know its KV use is priced at the median candidate's ({@link UnknownKv}).
 */
public final class Router {
    private final RoutingPolicy policy;
    private final RouterState state;
    private final CandidateFilter filter;
    private final CandidateSampler sampler;

    public Router(RoutingPolicy policy, RouterState state) {
        this.policy = policy;
        this.state = state;
        this.filter = new CandidateFilter(state, policy.pricesKvUsage(), policy.pricesQueue());
        this.sampler = new CandidateSampler(state.settings());
    }

    public static Router create(String policyName, RoutingSettings settings) {
        return create(policyName, settings, RegionCatalog.empty());
    }

    /** A router whose policy accounts for the regions' delays and prices ({@code kvroute} only). */
    public static Router create(String policyName, RoutingSettings settings, RegionCatalog regions) {
        return create(policyName, settings, regions, TieBreak.BY_ID);
    }

    /** As {@link #create(String, RoutingSettings, RegionCatalog)}, breaking ties as {@code tieBreak} orders workers. */
    public static Router create(String policyName, RoutingSettings settings, RegionCatalog regions, TieBreak tieBreak) {
        RouterState state = new RouterState(settings, new KvEventIndex(settings.kvEventIndexCapacity()), regions, tieBreak);
        return new Router(Policies.create(policyName, state), state);
    }

    public RoutingPolicy policy() {
        return policy;
    }

    public RouterState state() {
        return state;
    }

    public RoutingResult route(RouteRequest request, Collection<WorkerSnapshot> workers, long nowMs) {
        if (workers.size() > state.settings().candidateSampleSize()) {
            return route(request, FleetView.of(workers), nowMs);
        }
        PrefixLookups lookups = prepare(request);
        try {
            return decide(request, filter.filter(request, workers, nowMs), workers.size(), nowMs);
        } finally {
            lookups.release();
        }
    }

    /** Routes over a fleet kept up to date elsewhere; the cost does not grow with the fleet. */
    public RoutingResult route(RouteRequest request, FleetView fleet, long nowMs) {
        int fleetSize = fleet.size();
        if (fleetSize <= state.settings().candidateSampleSize()) {
            return route(request, fleet.all(), nowMs);
        }
        PrefixLookups lookups = prepare(request);
        try {
            FleetView.Eligible eligible = fleet.eligible(request, state.settings());
            Map<Exclusion, Integer> excluded = new EnumMap<>(Exclusion.class);
            int serving = fleet.serving(request.model());
            if (fleetSize > serving) {
                excluded.put(Exclusion.MODEL_NOT_SERVED, fleetSize - serving);
            }
            if (serving > eligible.size()) {
                excluded.put(Exclusion.REGION_NOT_ALLOWED, serving - eligible.size());
            }
            CandidateFilter.Accumulator accumulator = filter.accumulator(request, nowMs, excluded);
            if (eligible.size() <= state.settings().candidateSampleSize()) {
                for (int i = 0; i < eligible.size(); i++) {
                    evaluate(accumulator, eligible.get(i), fleet);
                }
            } else {
                sampler.begin(request, fleet, eligible, lookups.reported, lookups.routed, id -> evaluate(accumulator, id, fleet));
                while (!accumulator.hasCandidate() && !sampler.exhausted()) {
                    sampler.drawMore(state.settings().candidateSampleSize(), id -> evaluate(accumulator, id, fleet));
                }
            }
            return decide(request, accumulator.result(fleetSize), fleetSize, nowMs);
        } finally {
            lookups.release();
        }
    }

    /** A worker removed from the fleet since the decision read its lists is skipped. */
    private static void evaluate(CandidateFilter.Accumulator accumulator, int id, FleetView fleet) {
        WorkerSnapshot worker = fleet.get(id);
        if (worker != null) {
            accumulator.add(id, worker);
        }
    }

    private RoutingResult decide(RouteRequest request, CandidateSet candidates, int workersSeen, long nowMs) {
        String excluded = candidates.exclusionSummary();
        if (candidates.isEmpty()) {
            String reason = workersSeen == 0 ? "no worker has reported telemetry"
                    : "no candidate among " + workersSeen + " workers: " + excluded;
            return new RoutingResult(Optional.empty(), candidates, reason);
        }
        List<WorkerSnapshot> list = candidates.candidates();
        Optional<Placement> placement = policy.place(request, UnknownKv.neutral(list), nowMs);
        if (placement.isEmpty()) {
            return new RoutingResult(Optional.empty(), candidates,
                    "policy " + policy.name() + " placed nowhere among " + list.size() + " candidates");
        }
        Placement placed = placement.get();
        if (!excluded.isEmpty()) {
            placed = placed.withReason(placed.reason() + "; " + excluded);
        }
        WorkerSnapshot worker = null;
        for (WorkerSnapshot candidate : list) {
            if (candidate.workerId().equals(placed.workerId())) {
                worker = candidate;
                break;
            }
        }
        if (worker == null) {
            throw new IllegalStateException("policy " + policy.name() + " placed on a non-candidate " + placed.workerId());
        }
        state.recordPlacement(request, placed, worker, nowMs);
        policy.onPlaced(request, placed, nowMs);
        return new RoutingResult(Optional.of(placed), candidates, placed.reason());
    }

    /**
     * Accounts a placement another router instance made at {@code decidedAtMs} (read from its
     * decision record) as if this one had made it: its pending load, its prefix claim and the
     * policy's own history. Each instance routes only its requests partitions; without this, N
     * instances each see 1/N of the fleet's recent placements and herd between telemetry updates.
     */
    public void followPeer(RouteRequest request, WorkerSnapshot worker, int partition, long decidedAtMs) {
        policy.onPeerPlaced(request, worker, decidedAtMs);
        state.recordPlacement(request, partition, worker, decidedAtMs);
    }

    private PrefixLookups prepare(RouteRequest request) {
        long[] hashes = request.hashes();
        return new PrefixLookups(state.kvEventIndex().prepare(hashes), state.prefixIndex().prepare(hashes));
    }

    /** Both indices' holders of one request's blocks, released when the decision ends. */
    private final class PrefixLookups {
        private final PrefixLookup reported;
        private final PrefixLookup routed;

        PrefixLookups(PrefixLookup reported, PrefixLookup routed) {
            this.reported = reported;
            this.routed = routed;
        }

        void release() {
            state.kvEventIndex().release();
            state.prefixIndex().release();
        }
    }
}
