package io.kvroute.bench.sim.internal;

import io.kvroute.bench.sim.Conditions;
import io.kvroute.bench.sim.EngineProfile;
import io.kvroute.bench.sim.EstimateError;
import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.bench.sim.Latency;
import io.kvroute.bench.sim.PolicyResult;
import io.kvroute.bench.sim.RunLog;
import io.kvroute.bench.sim.SimConfig;
import io.kvroute.bench.sim.SimulationObserver;
import io.kvroute.bench.sim.TelemetryMode;
import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.router.routing.FinishedRun;
import io.kvroute.router.routing.KvEvent;
import io.kvroute.router.routing.KvAwarePolicy;
import io.kvroute.router.routing.KvEventIndex;
import io.kvroute.router.routing.LatencyClass;
import io.kvroute.router.routing.Placement;
import io.kvroute.router.routing.Residency;
import io.kvroute.router.routing.RouteRequest;
import io.kvroute.router.routing.Router;
import io.kvroute.router.routing.RouterState;
import io.kvroute.router.routing.RoutingSettings;
import io.kvroute.router.routing.RoutingResult;
import io.kvroute.router.routing.TieBreak;
import io.kvroute.router.routing.WorkerSnapshot;
import io.kvroute.router.routing.Policies;
import io.kvroute.router.routing.fairness.FairQueue;
import io.kvroute.router.routing.quota.QuotaDecision;
import io.kvroute.router.routing.quota.QuotaLimits;
import io.kvroute.router.routing.quota.TenantQuotas;
import io.kvroute.worker.engine.EngineRequest;
import io.kvroute.worker.engine.EngineStats;
import io.kvroute.worker.engine.RunTiming;
import io.kvroute.worker.engine.sim.StepResult;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * One policy over one trace, in virtual time: the router (the policy, its ledger, approximate
 * prefix index and KV-event index) decides on the telemetry it has received, which is always at
 * least a region delay old; dispatched requests reach their GPU's engine after the dispatch
 * latency and the region delay; engines step only while they have work; first tokens and
 * completions reach the user a region delay after the step that produced them. Deterministic:
 * events at the same virtual time run in the order they were scheduled, and the only randomness
 * (telemetry phases, the policy's seed) comes from the configured seed. Single use, single thread.
 * With several router instances ({@link SimConfig#routers}) each routes its share of the requests
 * (by request id) with its own state, and follows the others' placements a dispatch latency later.
 *
 * <p>With {@link Conditions} (bench scenarios) the router also narrows each request to the regions
 * it and its tenant allow, applies tenant quotas, queues requests it cannot place in a FIFO or a
 * fair queue, cools down pools that answer 429 and retries their requests elsewhere, and
 * re-dispatches requests stuck on workers whose telemetry went stale; regions fail and restart.
 * {@link Conditions#NONE} runs exactly the plain simulation.
 */
public final class SimulationRun {
    private static final int NOT_YET = -1;

    private final String policy;
    private final List<TraceRequest> trace;
    private final SimConfig config;
    private final SimulationObserver observer;
    /** One per router instance: each routes the requests of its own requests partitions. */
    private final Router[] routers;
    private final PriorityQueue<Event> queue = new PriorityQueue<>();
    private final TreeMap<String, WorkerSnapshot> view = new TreeMap<>();
    private final Collection<WorkerSnapshot> viewValues = view.values();
    private final List<SimulatedGpu> gpus = new ArrayList<>();
    private final Map<String, SimulatedGpu[]> gpusByRegion = new HashMap<>();
    private final List<Parked> parked = new ArrayList<>();
    private final RouteRequest[] routeRequests;
    private final long[] firstTokenAtMs;
    private final long[] doneAtMs;
    private final int[] cachedTokens;
    /** The chosen GPU's TTFT estimate at the request's last placement (NaN when the policy gave none), and when. */
    private final double[] estimatedTtftMs;
    private final long[] placedAtMs;
    private final boolean[] rejected;
    private final boolean[] failed;
    private final Map<String, Integer> requestsPerRegion = new TreeMap<>();
    private final long telemetryPeriodMs;
    private long sequence;
    private int outstanding;
    private long preemptions;
    private int parkedEver;
    private double busyMs;
    private boolean retryScheduled;
    private boolean ran;

    private final Conditions conditions;
    private final boolean extended;
    private final Residency residency;
    private final TenantQuotas quotas;
    private final FairQueue<Integer> routerQueue;
    private final Object[] served;
    private final boolean[] waitedForQuota;
    private final Map<String, ArrayDeque<Integer>> quotaWaiting = new HashMap<>();
    private final int[] attempts;
    private final int[] assignedGpu;
    private final int[] assignedGeneration;
    private final List<LinkedHashSet<Integer>> inFlight = new ArrayList<>();
    private final List<RunLog.PlacementRecord> placements = new ArrayList<>();
    private final Map<String, Long> coolingEndByRegion = new TreeMap<>();
    private final Map<String, Long> cooldownMsByRegion = new TreeMap<>();
    private int residencyViolations;
    private int rateLimitedAnswers;
    private int failovers;
    private int quotaWaits;
    private int quotaRejected;

    public SimulationRun(String policy, List<TraceRequest> trace, SimConfig config, SimulationObserver observer) {
        this(policy, trace, config, observer, Conditions.NONE);
    }

    public SimulationRun(String policy, List<TraceRequest> trace, SimConfig config, SimulationObserver observer,
                         Conditions conditions) {
        this.policy = policy;
        this.trace = List.copyOf(trace);
        this.config = config;
        this.observer = observer;
        this.conditions = conditions;
        this.extended = conditions != Conditions.NONE;
        this.routers = new Router[config.routers().instances()];
        // the routers start from the engine prior the config names (none by default) and learn each pool's speed
        RoutingSettings routing = config.routing();
        for (int i = 0; i < routers.length; i++) {
            // the first instance breaks ties by worker id, as a single router does
            RouterState state = new RouterState(routing, new KvEventIndex(routing.kvEventIndexCapacity()),
                    conditions.regions(), new TieBreak(i));
            routers[i] = new Router(Policies.create(policy, state), state);
        }
        int n = this.trace.size();
        this.residency = new Residency(conditions.tenantRegions());
        this.quotas = new TenantQuotas(conditions.quotas(), QuotaLimits.NONE);
        this.routerQueue = conditions.queue() == Conditions.RouterQueue.PARKED ? null : new FairQueue<>();
        this.served = new Object[n];
        this.waitedForQuota = new boolean[n];
        this.attempts = new int[n];
        this.assignedGpu = new int[n];
        this.assignedGeneration = new int[n];
        this.routeRequests = new RouteRequest[n];
        this.firstTokenAtMs = new long[n];
        this.doneAtMs = new long[n];
        this.cachedTokens = new int[n];
        this.estimatedTtftMs = new double[n];
        this.placedAtMs = new long[n];
        Arrays.fill(estimatedTtftMs, Double.NaN);
        this.rejected = new boolean[n];
        this.failed = new boolean[n];
        Arrays.fill(firstTokenAtMs, NOT_YET);
        Arrays.fill(doneAtMs, NOT_YET);
        this.telemetryPeriodMs = Math.max(1, config.telemetryIntervalMs() / SimulatedGpu.CHECKS_PER_INTERVAL);
        // a region's slots (its dispatch partitions) run across its pools in the order the fleet lists them
        Map<String, List<SimulatedGpu>> slotsByRegion = new LinkedHashMap<>();
        for (FleetSpec.Pool pool : config.fleet().pools()) {
            EngineProfile engine = config.engineOf(pool);
            List<SimulatedGpu> slots = slotsByRegion.computeIfAbsent(pool.region(), r -> new ArrayList<>());
            for (int i = 0; i < pool.gpus(); i++) {
                SimulatedGpu gpu = new SimulatedGpu(gpus.size(), pool.region(), slots.size(), pool.delayMs(),
                        engine.costModel(), engine.limits(), engine.baseName());
                slots.add(gpu);
                gpus.add(gpu);
            }
        }
        slotsByRegion.forEach((region, slots) -> gpusByRegion.put(region, slots.toArray(new SimulatedGpu[0])));
        for (int i = 0; i < gpus.size(); i++) {
            inFlight.add(new LinkedHashSet<>());
        }
    }

    public PolicyResult run() {
        if (ran) {
            throw new IllegalStateException("a simulation run is single use");
        }
        ran = true;
        if (trace.isEmpty()) {
            return result(0);
        }
        long firstArrival = trace.stream().mapToLong(TraceRequest::arrivalMs).min().orElse(0);
        for (int i = 0; i < trace.size(); i++) {
            schedule(trace.get(i).arrivalMs(), Event.Kind.ARRIVAL, -1, i, null);
        }
        outstanding = trace.size();
        SplittableRandom phases = new SplittableRandom(config.seed());
        long start = firstArrival - config.fleet().largestDelayMs() - telemetryPeriodMs;
        for (SimulatedGpu gpu : gpus) {
            schedule(start + phases.nextLong(telemetryPeriodMs), Event.Kind.TELEMETRY_CHECK, gpu.index, -1, null);
        }
        for (Conditions.Outage outage : conditions.outages()) {
            schedule(outage.fromMs(), Event.Kind.OUTAGE_START, -1, -1, outage);
            schedule(outage.toMs(), Event.Kind.OUTAGE_END, -1, -1, outage);
        }
        if (!conditions.outages().isEmpty()) {
            schedule(firstArrival + conditions.failoverCheckMs(), Event.Kind.FAILOVER_CHECK, -1, -1, null);
        }
        while (!queue.isEmpty()) {
            Event event = queue.poll();
            handle(event);
        }
        if (outstanding != 0) {
            throw new IllegalStateException("simulation of " + policy + " ended with " + outstanding + " requests unfinished");
        }
        return result(firstArrival);
    }

    private void handle(Event e) {
        long now = e.timeMs();
        switch (e.kind()) {
            case ARRIVAL -> arrive(e.request(), now);
            case PARK_RETRY -> retryParked(now);
            case PEER_DECISION -> peerDecision(e.request(), (PeerDecision) e.payload());
            case CONSUMED -> consumed(gpus.get(e.gpu()), e.request(), e.payload(), now);
            case DELIVERED -> delivered(gpus.get(e.gpu()), e.request(), e.payload(), now);
            case STEP -> step(gpus.get(e.gpu()), now);
            case TELEMETRY_CHECK -> telemetryCheck(gpus.get(e.gpu()), now);
            case TELEMETRY_VISIBLE -> telemetryVisible((Telemetry) e.payload());
            case ADMIT -> admitWaiting(trace.get(e.request()).tenant(), now);
            case OUTAGE_START -> outage((Conditions.Outage) e.payload(), true);
            case OUTAGE_END -> outage((Conditions.Outage) e.payload(), false);
            case RATE_LIMITED_ANSWER -> rateLimitedAnswer(gpus.get(e.gpu()), e.request(), (Long) e.payload(), now);
            case FAILOVER_CHECK -> failoverCheck(now);
        }
    }

    private void arrive(int index, long now) {
        TraceRequest r = trace.get(index);
        if (!extended) {
            routeRequests[index] = new RouteRequest(Integer.toString(index), r.tenant(), SimConfig.MODEL, r.inputTokens(),
                    r.blockIds(), r.blockTokens(), r.outputTokens(), r.allowedRegions(), null, RouteRequest.NO_DEADLINE);
            if (!tryPlace(index, now)) {
                park(index, now);
            }
            return;
        }
        Optional<RouteRequest> constrained = residency.constrain(new RouteRequest(Integer.toString(index), r.tenant(),
                SimConfig.MODEL, r.inputTokens(), r.blockIds(), r.blockTokens(), r.outputTokens(), r.allowedRegions(),
                r.priority(), RouteRequest.NO_DEADLINE));
        if (constrained.isEmpty()) {
            reject(index);
            return;
        }
        routeRequests[index] = constrained.get();
        admit(index, now);
    }

    /**
     * Scenario: the tenant's quota admits the request, makes it wait, or rejects it. Requests that
     * wait queue per tenant in arrival order; only the head retries, when its wait is over.
     */
    private void admit(int index, long now) {
        String tenant = trace.get(index).tenant();
        ArrayDeque<Integer> waiting = quotaWaiting.computeIfAbsent(tenant, t -> new ArrayDeque<>());
        waiting.add(index);
        if (waiting.size() == 1) {
            admitWaiting(tenant, now);
        }
    }

    private void admitWaiting(String tenant, long now) {
        ArrayDeque<Integer> waiting = quotaWaiting.get(tenant);
        while (!waiting.isEmpty()) {
            int index = waiting.peek();
            QuotaDecision decision = quotas.tryAcquire(routeRequests[index], now);
            if (decision.outcome() == QuotaDecision.Outcome.WAIT) {
                if (!waitedForQuota[index]) {
                    waitedForQuota[index] = true;
                    quotaWaits++;
                }
                schedule(now + Math.max(1, decision.retryAfterMs()), Event.Kind.ADMIT, -1, index, null);
                return;
            }
            waiting.poll();
            if (decision.admitted()) {
                enter(index, now);
            } else {
                quotaRejected++;
                reject(index);
            }
        }
    }

    /** Scenario: an admitted request (new, or back after a 429 or a failover) looks for a worker. */
    private void enter(int index, long now) {
        if (routerQueue == null) {
            if (!tryPlace(index, now)) {
                park(index, now);
            }
            return;
        }
        RouteRequest r = routeRequests[index];
        String queueTenant = conditions.queue() == Conditions.RouterQueue.FAIR ? r.tenant() : "";
        routerQueue.add(index, queueTenant, LatencyClass.of(r), r.promptTokens(), r.maxTokens());
        drainQueue(now);
    }

    private void drainQueue(long now) {
        while (true) {
            Optional<FairQueue.Served<Integer>> next = routerQueue.serveNext(i -> tryPlace(i, now));
            if (next.isEmpty()) {
                break;
            }
            served[next.get().item()] = next.get();
        }
        if (!routerQueue.isEmpty() && !retryScheduled) {
            retryScheduled = true;
            schedule(now + config.parkRetryMs(), Event.Kind.PARK_RETRY, -1, -1, null);
        }
    }

    private void reject(int index) {
        rejected[index] = true;
        outstanding--;
    }

    private void park(int index, long now) {
        parked.add(new Parked(index, now));
        parkedEver++;
        if (!retryScheduled) {
            retryScheduled = true;
            long retry = config.parkRetryMs();
            schedule((Math.floorDiv(now, retry) + 1) * retry, Event.Kind.PARK_RETRY, -1, -1, null);
        }
    }

    private void retryParked(long now) {
        if (routerQueue != null) {
            retryScheduled = false;
            drainQueue(now);
            return;
        }
        for (Iterator<Parked> it = parked.iterator(); it.hasNext(); ) {
            Parked p = it.next();
            if (tryPlace(p.index(), now)) {
                it.remove();
            } else if (now - p.parkedAtMs() >= config.parkedMaxMs()) {
                it.remove();
                rejected[p.index()] = true;
                outstanding--;
            }
        }
        retryScheduled = !parked.isEmpty();
        if (retryScheduled) {
            schedule(now + config.parkRetryMs(), Event.Kind.PARK_RETRY, -1, -1, null);
        }
    }

    private boolean tryPlace(int index, long now) {
        int instance = instanceOf(index);
        RoutingResult result = routers[instance].route(routeRequests[index], viewValues, now);
        observer.onDecision(now, index, viewValues, result);
        if (result.placement().isEmpty()) {
            return false;
        }
        Placement placement = result.placement().get();
        if (routers.length > 1 && !config.routers().isolated()) {
            // the others read the decision record once its transaction commits, when the worker can read the dispatch
            schedule(now + config.dispatchLatencyMs(), Event.Kind.PEER_DECISION, -1, index,
                    new PeerDecision(instance, placement.workerId(), placement.partition(), now));
        }
        SimulatedGpu[] slots = gpusByRegion.get(placement.region());
        if (slots == null || placement.partition() < 0 || placement.partition() >= slots.length) {
            throw new IllegalStateException("policy " + policy + " placed request " + index + " on unknown slot "
                    + placement.region() + "/" + placement.partition());
        }
        requestsPerRegion.merge(placement.region(), 1, Integer::sum);
        estimatedTtftMs[index] = estimatedTtftMs(placement);
        placedAtMs[index] = now;
        SimulatedGpu gpu = slots[placement.partition()];
        if (!extended) {
            schedule(now + config.dispatchLatencyMs(), Event.Kind.CONSUMED, gpu.index, index, null);
            return true;
        }
        attempts[index]++;
        placements.add(new RunLog.PlacementRecord(now, index, placement.region(), placement.workerId(), attempts[index]));
        if (!allowedByTrace(index, placement.region())) {
            residencyViolations++;
        }
        assignedGpu[index] = gpu.index;
        assignedGeneration[index] = gpu.generation;
        inFlight.get(gpu.index).add(index);
        schedule(now + config.dispatchLatencyMs(), Event.Kind.CONSUMED, gpu.index, index, gpu.generation);
        return true;
    }

    /** The chosen GPU's {@code ttft_ms} among the placement's scored candidates, NaN if it has none. */
    private static double estimatedTtftMs(Placement placement) {
        for (var candidate : placement.topCandidates()) {
            if (candidate.workerId().equals(placement.workerId())) {
                Double estimate = candidate.components().get(KvAwarePolicy.TTFT_COMPONENT);
                return estimate == null ? Double.NaN : estimate;
            }
        }
        return Double.NaN;
    }

    /** The router instance routing the request: requests are keyed by id, so an instance's share does not depend on the prompt. */
    private int instanceOf(int index) {
        return routers.length == 1 ? 0 : Math.floorMod(Long.hashCode((index + 1) * 0x9E3779B97F4A7C15L), routers.length);
    }

    /** Every other instance follows a placement, on the worker as it now sees it (one it has not heard from yet is skipped). */
    private void peerDecision(int index, PeerDecision decision) {
        WorkerSnapshot worker = view.get(decision.workerId());
        if (worker == null) {
            return;
        }
        for (int i = 0; i < routers.length; i++) {
            if (i != decision.instance()) {
                routers[i].followPeer(routeRequests[index], worker, decision.partition(), decision.decidedAtMs());
            }
        }
    }

    /** The residency rule checked from the trace and the tenants' settings, not by the router's code. */
    private boolean allowedByTrace(int index, String region) {
        TraceRequest r = trace.get(index);
        Set<String> tenant = conditions.tenantRegions().getOrDefault(r.tenant(), Set.of());
        return (r.allowedRegions().isEmpty() || r.allowedRegions().contains(region)) && (tenant.isEmpty() || tenant.contains(region));
    }

    /** Whether a dispatch record or request sent to the GPU's run {@code generation} is lost (GPU down or restarted). */
    private static boolean gone(SimulatedGpu gpu, Object generation) {
        return generation != null && (gpu.down || gpu.generation != (Integer) generation);
    }

    private void consumed(SimulatedGpu gpu, int index, Object generation, long now) {
        if (gone(gpu, generation)) {
            return;
        }
        gpu.inTransit++;
        schedule(now + gpu.delayMs, Event.Kind.DELIVERED, gpu.index, index, generation);
    }

    private void delivered(SimulatedGpu gpu, int index, Object generation, long now) {
        if (gone(gpu, generation)) {
            return;
        }
        gpu.inTransit--;
        if (extended) {
            Conditions.RateLimitWindow window = rateLimitWindow(gpu.region, now);
            if (window != null) {
                gpu.rateLimitedUntilMs = Math.max(gpu.rateLimitedUntilMs, now + window.retryAfterMs());
                schedule(now + gpu.delayMs, Event.Kind.RATE_LIMITED_ANSWER, gpu.index, index, window.retryAfterMs());
                return;
            }
        }
        TraceRequest r = trace.get(index);
        try {
            EngineRequest request = new EngineRequest(Integer.toString(index), 1, r.inputTokens(), r.outputTokens(), r.blockIds(),
                    r.blockTokens(), now);
            gpu.core.add(request);
            gpu.observed.sent(request.key(), request.promptTokens(), now);
        } catch (IllegalArgumentException tooLarge) {
            failed[index] = true;
            outstanding--;
            return;
        }
        if (!gpu.stepScheduled) {
            gpu.stepScheduled = true;
            schedule(now, Event.Kind.STEP, gpu.index, -1, null);
        }
    }

    private void step(SimulatedGpu gpu, long now) {
        if (gpu.down) {
            gpu.stepScheduled = false;
            return;
        }
        StepResult result = gpu.core.step(now);
        preemptions += result.preempted().size();
        if (result.idle()) {
            if (gpu.core.hasWork()) {
                // everything running was preempted: the engine tries again on its next loop
                schedule(now + 1, Event.Kind.STEP, gpu.index, -1, null);
            } else {
                gpu.stepScheduled = false;
            }
            return;
        }
        long end = result.endMs();
        busyMs += end - now;
        observer.onStep(gpu.index, now, end - now, result.prefillTokens());
        for (String key : result.firstTokenTtftMs().keySet()) {
            gpu.observed.firstToken(key, end);
            int index = indexOf(key);
            if (firstTokenAtMs[index] == NOT_YET) {
                firstTokenAtMs[index] = end + gpu.delayMs;
            }
        }
        result.tokensByKey().forEach((key, count) -> gpu.observed.tokens(key, count));
        for (StepResult.Finished f : result.finished()) {
            RunTiming timing = gpu.observed.finished(f.request().key(), f.usage().completionTokens(), end);
            int index = Integer.parseInt(f.request().requestId());
            doneAtMs[index] = end + gpu.delayMs;
            cachedTokens[index] = f.usage().cachedTokens();
            outstanding--;
            // the instance that placed it reads its result (its own requests partitions); a network delay early here
            routers[instanceOf(index)].state().outputLengths().completed(f.usage().completionTokens());
            learnSpeed(instanceOf(index), gpu, f, timing);
            if (extended) {
                settle(index, f.usage().promptTokens(), f.usage().completionTokens(), doneAtMs[index]);
            }
        }
        if (gpu.core.hasWork()) {
            schedule(end, Event.Kind.STEP, gpu.index, -1, null);
        } else {
            gpu.stepScheduled = false;
        }
    }

    /**
     * The run's timing teaches the router that placed it its GPU's pool's speed, with what the router's latest
     * telemetry of that GPU says (the live router's path: {@code ResultTracker}).
     */
    private void learnSpeed(int router, SimulatedGpu gpu, StepResult.Finished f, RunTiming timing) {
        WorkerSnapshot worker = view.get(gpu.workerId);
        if (worker != null) {
            routers[router].state().engineSpeeds().observe(FinishedRun.of(worker, f.usage().promptTokens(), f.usage().cachedTokens(),
                    f.usage().completionTokens(), timing.ttftMs(), timing.decodeMs(), timing.queuedAheadTokens(),
                    timing.promptTokensDuringDecode()));
        }
    }

    private void telemetryCheck(SimulatedGpu gpu, long now) {
        EngineStats stats = gpu.stats();
        if (!gpu.down && gpu.shouldPublish(stats, now, config.telemetryIntervalMs())) {
            KvEvent kvEvent = gpu.drainKvEvent(); // drained even when not published, as the engine forgets what it did not send
            WorkerSnapshot snapshot = gpu.publish(stats, now, config.telemetry());
            // no KV events in observable telemetry: kvroute reads none from a real server
            boolean kvEvents = config.engine().publishesKvEvents() && config.telemetry() == TelemetryMode.WHITE_BOX;
            schedule(now + gpu.delayMs, Event.Kind.TELEMETRY_VISIBLE, gpu.index, -1, new Telemetry(snapshot, kvEvents ? kvEvent : null));
        }
        if (outstanding > 0) {
            schedule(now + telemetryPeriodMs, Event.Kind.TELEMETRY_CHECK, gpu.index, -1, null);
        }
    }

    private void telemetryVisible(Telemetry telemetry) {
        if (telemetry.kvEvent() != null) {
            for (Router router : routers) {
                router.state().kvEventIndex().apply(telemetry.kvEvent());
            }
        }
        WorkerSnapshot snapshot = telemetry.snapshot();
        WorkerSnapshot previous = view.get(snapshot.workerId());
        if (previous == null || previous.observedAtMs() <= snapshot.observedAtMs()) {
            view.put(snapshot.workerId(), snapshot);
        }
    }

    /** Scenario: a finished request's actual usage corrects its tenant's quota and fair-queue charge. */
    private void settle(int index, long promptTokens, long outputTokens, long now) {
        inFlight.get(assignedGpu[index]).remove(index);
        quotas.settle(routeRequests[index].requestId(), promptTokens + outputTokens, now);
        settleCharge(index, promptTokens, outputTokens);
    }

    @SuppressWarnings("unchecked")
    private void settleCharge(int index, long promptTokens, long outputTokens) {
        if (routerQueue != null && served[index] != null) {
            routerQueue.settle((FairQueue.Served<Integer>) served[index], promptTokens, outputTokens);
            served[index] = null;
        }
    }

    private Conditions.RateLimitWindow rateLimitWindow(String region, long now) {
        for (Conditions.RateLimitWindow w : conditions.rateLimits()) {
            if (w.region().equals(region) && now >= w.fromMs() && now < w.toMs()) {
                return w;
            }
        }
        return null;
    }

    /** Scenario: a 429 reached the router: cool the worker (or its whole pool) and route the request again. */
    private void rateLimitedAnswer(SimulatedGpu gpu, int index, long retryAfterMs, long now) {
        rateLimitedAnswers++;
        boolean shared = routers[0].state().regions().sharedRateLimit(gpu.region);
        long until = Long.MIN_VALUE;
        // every instance hears of the cool-down (the worker's telemetry carries it)
        for (Router router : routers) {
            until = router.state().cooldowns().onRateLimited(gpu.workerId, gpu.region, retryAfterMs, shared, now);
        }
        long end = coolingEndByRegion.getOrDefault(gpu.region, Long.MIN_VALUE);
        if (until > end) {
            cooldownMsByRegion.merge(gpu.region, until - Math.max(now, end), Long::sum);
            coolingEndByRegion.put(gpu.region, until);
        }
        if (inFlight.get(gpu.index).remove(index)) {
            settleCharge(index, 0, 0);
            enter(index, now);
        }
    }

    /** Scenario: a region's workers stop (or restart empty). */
    private void outage(Conditions.Outage outage, boolean start) {
        for (SimulatedGpu gpu : gpusByRegion.getOrDefault(outage.region(), new SimulatedGpu[0])) {
            if (start) {
                gpu.down = true;
            } else {
                gpu.restart();
            }
        }
    }

    /**
     * Scenario: requests dispatched to a worker whose telemetry the router has not seen for the TTL,
     * or that restarted since, are routed again (respecting their residency like any decision).
     */
    private void failoverCheck(long now) {
        long ttl = config.routing().telemetryTtlMs();
        for (SimulatedGpu gpu : gpus) {
            LinkedHashSet<Integer> requests = inFlight.get(gpu.index);
            if (requests.isEmpty()) {
                continue;
            }
            WorkerSnapshot seen = view.get(gpu.workerId);
            boolean stale = seen == null || now - seen.observedAtMs() > ttl;
            List<Integer> stuck = new ArrayList<>();
            for (int index : requests) {
                if (stale || assignedGeneration[index] != gpu.generation) {
                    stuck.add(index);
                }
            }
            requests.removeAll(stuck);
            for (int index : stuck) {
                failovers++;
                settleCharge(index, 0, 0);
                enter(index, now);
            }
        }
        if (outstanding > 0) {
            schedule(now + conditions.failoverCheckMs(), Event.Kind.FAILOVER_CHECK, -1, -1, null);
        }
    }

    /** The simulated GPUs in fleet order (for tests of this package). */
    List<SimulatedGpu> gpus() {
        return List.copyOf(gpus);
    }

    /** What happened to each request; call after {@link #run()}. */
    public RunLog log() {
        return new RunLog(trace, firstTokenAtMs.clone(), doneAtMs.clone(), attempts.clone(), List.copyOf(placements),
                residencyViolations, rateLimitedAnswers, Map.copyOf(cooldownMsByRegion), failovers, quotaWaits,
                quotaRejected);
    }

    private static int indexOf(String key) {
        int hash = key.indexOf('#');
        return Integer.parseInt(hash < 0 ? key : key.substring(0, hash));
    }

    private void schedule(long timeMs, Event.Kind kind, int gpu, int request, Object payload) {
        queue.add(new Event(timeMs, sequence++, kind, gpu, request, payload));
    }

    private PolicyResult result(long firstArrival) {
        int completed = 0;
        int rejectedCount = 0;
        int failedCount = 0;
        long promptTokens = 0;
        long cached = 0;
        long outputTokens = 0;
        long lastDone = firstArrival;
        long withinSlo = 0;
        long[] ttfts = new long[trace.size()];
        int[] servedIndex = new int[trace.size()];
        long[] e2es = new long[trace.size()];
        double[] estimateErrors = new double[trace.size()];
        int estimated = 0;
        for (int i = 0; i < trace.size(); i++) {
            if (rejected[i]) {
                rejectedCount++;
            } else if (failed[i]) {
                failedCount++;
            } else if (doneAtMs[i] != NOT_YET) {
                TraceRequest r = trace.get(i);
                ttfts[completed] = firstTokenAtMs[i] - r.arrivalMs();
                servedIndex[completed] = i;
                e2es[completed] = doneAtMs[i] - r.arrivalMs();
                if (!Double.isNaN(estimatedTtftMs[i])) {
                    estimateErrors[estimated++] = firstTokenAtMs[i] - placedAtMs[i] - config.dispatchLatencyMs() - estimatedTtftMs[i];
                }
                if (ttfts[completed] <= config.sloMs()) {
                    withinSlo++;
                }
                completed++;
                promptTokens += r.inputTokens();
                cached += cachedTokens[i];
                outputTokens += r.outputTokens();
                lastDone = Math.max(lastDone, doneAtMs[i]);
            }
        }
        long[] ttft = Arrays.copyOf(ttfts, completed);
        double makespanS = Math.max(1, lastDone - firstArrival) / 1000.0;
        return new PolicyResult(policy, completed, rejectedCount, failedCount, Latency.of(ttft),
                Latency.of(Arrays.copyOf(e2es, completed)), ttft, promptTokens == 0 ? 0.0 : (double) cached / promptTokens,
                preemptions, completed == 0 ? 0.0 : withinSlo / makespanS, completed == 0 ? 0.0 : outputTokens / makespanS,
                completed == 0 ? 0.0 : makespanS, requestsPerRegion, parkedEver,
                busyMs / (gpus.size() * makespanS * 1000.0), EstimateError.of(Arrays.copyOf(estimateErrors, estimated)),
                Arrays.copyOf(servedIndex, completed), Latency.EMPTY, io.kvroute.bench.sim.Slowdown.EMPTY);
    }

    private record Parked(int index, long parkedAtMs) {
    }

    private record PeerDecision(int instance, String workerId, int partition, long decidedAtMs) {
    }

    private record Telemetry(WorkerSnapshot snapshot, KvEvent kvEvent) {
    }
}
