package io.kvroute.router.routing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Decides which workers may take a request. A worker is a candidate only if its telemetry is
 * no older than the TTL, it serves the model, its region is known and allowed by the request,
 * it is HEALTHY (DEGRADED only when no healthy worker passes), it owns at least one partition,
 * it is not cooling down after a rate limit (its own {@link WorkerSnapshot#rateLimitedUntilMs} or
 * a 429 the router saw, {@link Cooldowns}), and it is not saturated counting the load the router
 * placed since its telemetry. A worker whose KV alone is saturated stays a candidate for a
 * request whose prefix it holds when the policy prices KV usage ({@link RoutingPolicy#pricesKvUsage}):
 * there the request needs KV only for its own tokens, anywhere else for the prefix too, and
 * leaving the holder out makes every such request copy the prefix to a second worker.
 *
 * <p>When the policy prices the queue itself ({@link RoutingPolicy#pricesQueue}), the queue limit (running + waiting +
 * pending at {@link RoutingSettings#saturationQueueFactor} times the batch limit) holds for the candidates together
 * rather than for each: the request waits at the router while they hold their limits' sum between them, and otherwise
 * each of them is a candidate. The limit counts requests, the policy prices their work; a policy that balances work
 * gives a worker of short prompts more requests than one of long prompts, and a per-worker count then leaves out the
 * workers with the least work ahead, so that every request goes to those with the most (Azure code trace past
 * saturation: the GPUs left out most often drained and sat idle while the others built 60 s queues).
 */
public final class CandidateFilter {
    private final RouterState state;
    private final boolean keepsKvFullHolders;
    private final boolean limitsQueuesTogether;

    /** A filter leaving out every saturated worker. */
    public CandidateFilter(RouterState state) {
        this(state, false);
    }

    /** {@code keepsKvFullHolders}: whether a worker saturated only by its KV usage stays a candidate for a request whose prefix it holds. */
    public CandidateFilter(RouterState state, boolean keepsKvFullHolders) {
        this(state, keepsKvFullHolders, false);
    }

    /**
     * {@code limitsQueuesTogether}: whether the queue limit holds for the candidates together (a policy pricing the queue)
     * instead of leaving out each worker past it.
     */
    public CandidateFilter(RouterState state, boolean keepsKvFullHolders, boolean limitsQueuesTogether) {
        this.state = state;
        this.keepsKvFullHolders = keepsKvFullHolders;
        this.limitsQueuesTogether = limitsQueuesTogether;
    }

    public CandidateSet filter(RouteRequest request, Collection<WorkerSnapshot> workers, long nowMs) {
        Accumulator accumulator = accumulator(request, nowMs, new EnumMap<>(Exclusion.class));
        for (WorkerSnapshot worker : workers) {
            accumulator.add(worker);
        }
        return accumulator.result(workers.size());
    }

    /** Filters workers one at a time, starting from exclusions already counted elsewhere. */
    Accumulator accumulator(RouteRequest request, long nowMs, Map<Exclusion, Integer> excluded) {
        return new Accumulator(request, nowMs, excluded);
    }

    /** The workers added so far that may take the request, and why the others may not. */
    final class Accumulator {
        private final RouteRequest request;
        private final long nowMs;
        private final RoutingSettings settings = state.settings();
        private final Map<Exclusion, Integer> excluded;
        private final List<WorkerSnapshot> healthy = new ArrayList<>();
        private final List<WorkerSnapshot> degraded = new ArrayList<>();
        /** The {@link WorkerIds} ids of {@link #healthy} and {@link #degraded}, index for index. */
        private final IntList healthyIds = new IntList();
        private final IntList degradedIds = new IntList();
        /** With the queue limit held together: the healthy and the degraded candidates' queues and limits. */
        private final Queues healthyQueues = new Queues();
        private final Queues degradedQueues = new Queues();

        private Accumulator(RouteRequest request, long nowMs, Map<Exclusion, Integer> excluded) {
            this.request = request;
            this.nowMs = nowMs;
            this.excluded = excluded;
        }

        void add(WorkerSnapshot worker) {
            add(WorkerIds.of(worker.workerId()), worker);
        }

        /** Adds a worker whose {@link WorkerIds} id the caller knows. */
        void add(int id, WorkerSnapshot worker) {
            Exclusion reason = exclusion(request, worker, nowMs, settings);
            if (reason != null) {
                excluded.merge(reason, 1, Integer::sum);
            } else if (worker.status() == WorkerHealth.HEALTHY) {
                healthyIds.add(id);
                healthy.add(worker);
                healthyQueues.add(worker, state.pending(worker, nowMs), settings);
            } else {
                degradedIds.add(id);
                degraded.add(worker);
                degradedQueues.add(worker, state.pending(worker, nowMs), settings);
            }
        }

        /** Whether the workers added so far leave the request a candidate (with the limit held together, room below it). */
        boolean hasCandidate() {
            return !healthy.isEmpty() ? !(limitsQueuesTogether && healthyQueues.full())
                    : !degraded.isEmpty() && !(limitsQueuesTogether && degradedQueues.full());
        }

        CandidateSet result(int workersSeen) {
            Map<Exclusion, Integer> counts = new EnumMap<>(Exclusion.class);
            counts.putAll(excluded);
            boolean useHealthy = !healthy.isEmpty();
            if (useHealthy && !degraded.isEmpty()) {
                counts.merge(Exclusion.DEGRADED, degraded.size(), Integer::sum);
            }
            List<WorkerSnapshot> chosen = useHealthy ? healthy : degraded;
            if (limitsQueuesTogether && (useHealthy ? healthyQueues : degradedQueues).full()) {
                counts.merge(Exclusion.SATURATED, chosen.size(), Integer::sum);
                return new CandidateSet(List.of(), counts, workersSeen);
            }
            return new CandidateSet(useHealthy ? byWorkerId(healthy, healthyIds) : byWorkerId(degraded, degradedIds), counts, workersSeen);
        }
    }

    /**
     * Requests running, waiting and pending on some workers, and the sum of their queue limits; a worker that does not
     * report its batch limit has none, and leaves the group never full, as it is never saturated alone.
     */
    private static final class Queues {
        private long requests;
        private double limit;
        private boolean unlimited;

        void add(WorkerSnapshot worker, PendingLoad pending, RoutingSettings settings) {
            if (worker.maxRunning() <= 0) {
                unlimited = true;
            }
            requests += (long) worker.running() + worker.waiting() + pending.requests();
            limit += worker.maxRunning() * settings.saturationQueueFactor();
        }

        boolean full() {
            return !unlimited && limit > 0 && requests >= limit;
        }
    }

    /** The workers in worker-id order, sorting their ids' ranks ({@link WorkerIds#ranks}) instead of the strings. */
    private static List<WorkerSnapshot> byWorkerId(List<WorkerSnapshot> workers, IntList ids) {
        int n = workers.size();
        int[] ranks = WorkerIds.ranks();
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = ((long) ranks[ids.get(i)] << 32) | i;
        }
        Arrays.sort(keys);
        List<WorkerSnapshot> sorted = new ArrayList<>(n);
        for (long key : keys) {
            sorted.add(workers.get((int) key));
        }
        return sorted;
    }

    private Exclusion exclusion(RouteRequest request, WorkerSnapshot worker, long nowMs, RoutingSettings settings) {
        if (worker.ageMs(nowMs) > settings.telemetryTtlMs()) {
            return Exclusion.STALE;
        }
        if (!worker.models().contains(request.model())) {
            return Exclusion.MODEL_NOT_SERVED;
        }
        if (!settings.regionKnown(worker.region()) || !request.allowsRegion(worker.region())) {
            return Exclusion.REGION_NOT_ALLOWED;
        }
        if (worker.status() != WorkerHealth.HEALTHY && worker.status() != WorkerHealth.DEGRADED) {
            return Exclusion.NOT_HEALTHY;
        }
        if (worker.ownedPartitions().isEmpty()) {
            return Exclusion.NO_PARTITIONS;
        }
        if (state.cooldowns().cooling(worker, nowMs)) {
            return Exclusion.RATE_LIMITED;
        }
        PendingLoad pending = state.pending(worker, nowMs);
        if ((!limitsQueuesTogether && queueSaturated(worker, pending, settings))
                || (kvSaturated(worker, pending, settings) && !(keepsKvFullHolders && state.cachedBlocks(worker, request, nowMs) > 0))) {
            return Exclusion.SATURATED;
        }
        return null;
    }

    private static boolean queueSaturated(WorkerSnapshot worker, PendingLoad pending, RoutingSettings settings) {
        long requests = (long) worker.running() + worker.waiting() + pending.requests();
        return worker.maxRunning() > 0 && requests >= worker.maxRunning() * settings.saturationQueueFactor();
    }

    private static boolean kvSaturated(WorkerSnapshot worker, PendingLoad pending, RoutingSettings settings) {
        return kvUsageWith(worker, pending.kvBlocks()) >= settings.saturationKvUsage();
    }

    /** KV usage if {@code extraBlocks} more were in use; reported usage when capacity is unknown. */
    static double kvUsageWith(WorkerSnapshot worker, long extraBlocks) {
        if (worker.kvBlocksTotal() <= 0) {
            return worker.kvUsage();
        }
        double reported = Math.max(worker.kvUsage(), (double) worker.kvBlocksUsed() / worker.kvBlocksTotal());
        return reported + (double) extraBlocks / worker.kvBlocksTotal();
    }
}
