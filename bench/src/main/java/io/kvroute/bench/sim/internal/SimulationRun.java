package io.kvroute.bench.sim.internal;

import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.bench.sim.Latency;
import io.kvroute.bench.sim.PolicyResult;
import io.kvroute.bench.sim.SimConfig;
import io.kvroute.bench.sim.SimulationObserver;
import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.router.routing.KvEvent;
import io.kvroute.router.routing.Placement;
import io.kvroute.router.routing.RouteRequest;
import io.kvroute.router.routing.Router;
import io.kvroute.router.routing.RouterState;
import io.kvroute.router.routing.RoutingResult;
import io.kvroute.router.routing.WorkerSnapshot;
import io.kvroute.router.routing.Policies;
import io.kvroute.worker.engine.EngineRequest;
import io.kvroute.worker.engine.EngineStats;
import io.kvroute.worker.engine.sim.StepResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
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
 */
public final class SimulationRun {
    private static final int NOT_YET = -1;

    private final String policy;
    private final List<TraceRequest> trace;
    private final SimConfig config;
    private final SimulationObserver observer;
    private final Router router;
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

    public SimulationRun(String policy, List<TraceRequest> trace, SimConfig config, SimulationObserver observer) {
        this.policy = policy;
        this.trace = List.copyOf(trace);
        this.config = config;
        this.observer = observer;
        RouterState state = new RouterState(config.routing());
        this.router = new Router(Policies.create(policy, state), state);
        int n = this.trace.size();
        this.routeRequests = new RouteRequest[n];
        this.firstTokenAtMs = new long[n];
        this.doneAtMs = new long[n];
        this.cachedTokens = new int[n];
        this.rejected = new boolean[n];
        this.failed = new boolean[n];
        Arrays.fill(firstTokenAtMs, NOT_YET);
        Arrays.fill(doneAtMs, NOT_YET);
        this.telemetryPeriodMs = Math.max(1, config.telemetryIntervalMs() / SimulatedGpu.CHECKS_PER_INTERVAL);
        for (FleetSpec.Region region : config.fleet().regions()) {
            SimulatedGpu[] slots = new SimulatedGpu[region.gpus()];
            for (int slot = 0; slot < region.gpus(); slot++) {
                slots[slot] = new SimulatedGpu(gpus.size(), region.name(), slot, region.delayMs(),
                        config.engine().costModel(), config.engine().limits());
                gpus.add(slots[slot]);
            }
            gpusByRegion.put(region.name(), slots);
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
            case CONSUMED -> consumed(gpus.get(e.gpu()), e.request(), now);
            case DELIVERED -> delivered(gpus.get(e.gpu()), e.request(), now);
            case STEP -> step(gpus.get(e.gpu()), now);
            case TELEMETRY_CHECK -> telemetryCheck(gpus.get(e.gpu()), now);
            case TELEMETRY_VISIBLE -> telemetryVisible((Telemetry) e.payload());
        }
    }

    private void arrive(int index, long now) {
        TraceRequest r = trace.get(index);
        routeRequests[index] = new RouteRequest(Integer.toString(index), r.tenant(), SimConfig.MODEL, r.inputTokens(),
                r.blockIds(), r.blockTokens(), r.outputTokens(), Set.of(), null, RouteRequest.NO_DEADLINE);
        if (!tryPlace(index, now)) {
            parked.add(new Parked(index, now));
            parkedEver++;
            if (!retryScheduled) {
                retryScheduled = true;
                long retry = config.parkRetryMs();
                schedule((Math.floorDiv(now, retry) + 1) * retry, Event.Kind.PARK_RETRY, -1, -1, null);
            }
        }
    }

    private void retryParked(long now) {
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
        RoutingResult result = router.route(routeRequests[index], viewValues, now);
        observer.onDecision(now, index, viewValues, result);
        if (result.placement().isEmpty()) {
            return false;
        }
        Placement placement = result.placement().get();
        SimulatedGpu[] slots = gpusByRegion.get(placement.region());
        if (slots == null || placement.partition() < 0 || placement.partition() >= slots.length) {
            throw new IllegalStateException("policy " + policy + " placed request " + index + " on unknown slot "
                    + placement.region() + "/" + placement.partition());
        }
        requestsPerRegion.merge(placement.region(), 1, Integer::sum);
        schedule(now + config.dispatchLatencyMs(), Event.Kind.CONSUMED, slots[placement.partition()].index, index, null);
        return true;
    }

    private void consumed(SimulatedGpu gpu, int index, long now) {
        gpu.inTransit++;
        schedule(now + gpu.delayMs, Event.Kind.DELIVERED, gpu.index, index, null);
    }

    private void delivered(SimulatedGpu gpu, int index, long now) {
        gpu.inTransit--;
        TraceRequest r = trace.get(index);
        try {
            gpu.core.add(new EngineRequest(Integer.toString(index), 1, r.inputTokens(), r.outputTokens(), r.blockIds(),
                    r.blockTokens(), now));
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
        for (String key : result.firstTokenTtftMs().keySet()) {
            int index = indexOf(key);
            if (firstTokenAtMs[index] == NOT_YET) {
                firstTokenAtMs[index] = end + gpu.delayMs;
            }
        }
        for (StepResult.Finished f : result.finished()) {
            int index = Integer.parseInt(f.request().requestId());
            doneAtMs[index] = end + gpu.delayMs;
            cachedTokens[index] = f.usage().cachedTokens();
            outstanding--;
        }
        if (gpu.core.hasWork()) {
            schedule(end, Event.Kind.STEP, gpu.index, -1, null);
        } else {
            gpu.stepScheduled = false;
        }
    }

    private void telemetryCheck(SimulatedGpu gpu, long now) {
        EngineStats stats = gpu.stats();
        if (gpu.shouldPublish(stats, now, config.telemetryIntervalMs())) {
            KvEvent kvEvent = gpu.drainKvEvent();
            WorkerSnapshot snapshot = gpu.publish(stats, now);
            schedule(now + gpu.delayMs, Event.Kind.TELEMETRY_VISIBLE, gpu.index, -1, new Telemetry(snapshot, kvEvent));
        }
        if (outstanding > 0) {
            schedule(now + telemetryPeriodMs, Event.Kind.TELEMETRY_CHECK, gpu.index, -1, null);
        }
    }

    private void telemetryVisible(Telemetry telemetry) {
        if (telemetry.kvEvent() != null) {
            router.state().kvEventIndex().apply(telemetry.kvEvent());
        }
        WorkerSnapshot snapshot = telemetry.snapshot();
        WorkerSnapshot previous = view.get(snapshot.workerId());
        if (previous == null || previous.observedAtMs() <= snapshot.observedAtMs()) {
            view.put(snapshot.workerId(), snapshot);
        }
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
        long[] e2es = new long[trace.size()];
        for (int i = 0; i < trace.size(); i++) {
            if (rejected[i]) {
                rejectedCount++;
            } else if (failed[i]) {
                failedCount++;
            } else if (doneAtMs[i] != NOT_YET) {
                TraceRequest r = trace.get(i);
                ttfts[completed] = firstTokenAtMs[i] - r.arrivalMs();
                e2es[completed] = doneAtMs[i] - r.arrivalMs();
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
                busyMs / (gpus.size() * makespanS * 1000.0));
    }

    private record Parked(int index, long parkedAtMs) {
    }

    private record Telemetry(WorkerSnapshot snapshot, KvEvent kvEvent) {
    }
}
