package io.kvroute.bench.sim.internal;

import io.kvroute.bench.sim.SimConfig;
import io.kvroute.bench.sim.TelemetryMode;
import io.kvroute.router.routing.KvEvent;
import io.kvroute.router.routing.ObservedWork;
import io.kvroute.router.routing.WorkerHealth;
import io.kvroute.router.routing.WorkerSnapshot;
import io.kvroute.worker.engine.EngineStats;
import io.kvroute.worker.engine.KvChanges;
import io.kvroute.worker.engine.ObservedLoad;
import io.kvroute.worker.engine.ObservedRequests;
import io.kvroute.worker.engine.sim.CostModel;
import io.kvroute.worker.engine.sim.EngineCore;
import io.kvroute.worker.engine.sim.EngineLimits;
import java.util.List;
import java.util.Set;

/**
 * One simulated GPU worker: the worker's {@link EngineCore}, the requests it has consumed but
 * not yet handed to the engine (the network delay of a remote region, counted as waiting as the
 * live simulated engine does), and its telemetry publisher's state. Telemetry follows the live
 * publisher's rule: checked five times per interval, published when the interval has elapsed or
 * on a significant change (KV usage moved more than 5 points, or the waiting queue doubled), with
 * the KV events drained on the same tick. In a scenario the GPU may be down (it neither works nor
 * publishes) and restart empty (a new generation, whose first KV event clears the old cache), and
 * may be rate limited (it answers 429 and reports DEGRADED with the end of its cool-down).
 */
final class SimulatedGpu {
    static final double KV_USAGE_CHANGE = 0.05;
    static final int CHECKS_PER_INTERVAL = 5;

    final int index;
    final String workerId;
    final String region;
    final int slot;
    final long delayMs;
    /**
     * The engine profile this GPU runs (its pool's), by name without variants, e.g. {@code llama-8b-a100}: the pool its
     * telemetry names.
     */
    final String engineName;
    EngineCore core;
    /** The worker's own record of what it handed to the engine and what came back. */
    ObservedRequests observed = new ObservedRequests();
    int inTransit;
    boolean stepScheduled;
    boolean down;
    int generation;
    long rateLimitedUntilMs;
    private final CostModel costModel;
    private final EngineLimits limits;
    private final List<Integer> ownedPartitions;
    private boolean clearOnNextEvent;
    private EngineStats lastPublished;
    private long lastPublishedMs;
    private long kvSequence;

    SimulatedGpu(int index, String region, int slot, long delayMs, CostModel costModel, EngineLimits limits,
                 String engineName) {
        this.index = index;
        this.workerId = region + "-gpu-" + slot;
        this.region = region;
        this.slot = slot;
        this.delayMs = delayMs;
        this.engineName = engineName;
        this.core = new EngineCore(costModel, limits);
        this.costModel = costModel;
        this.limits = limits;
        this.ownedPartitions = List.of(slot);
    }

    /** Comes back after an outage with an empty engine: everything it held is lost. */
    void restart() {
        down = false;
        generation++;
        core = new EngineCore(costModel, limits);
        observed = new ObservedRequests();
        inTransit = 0;
        stepScheduled = false;
        lastPublished = null;
        clearOnNextEvent = true;
    }

    EngineStats stats() {
        return core.stats().withExtraWaiting(inTransit);
    }

    /** Whether the publisher sends telemetry at {@code nowMs} given the stats it just took. */
    boolean shouldPublish(EngineStats now, long nowMs, long intervalMs) {
        return lastPublished == null || nowMs - lastPublishedMs >= intervalMs || significantChange(lastPublished, now);
    }

    static boolean significantChange(EngineStats before, EngineStats now) {
        return Math.abs(now.kvUsage() - before.kvUsage()) > KV_USAGE_CHANGE
                || now.waitingRequests() >= 2 * Math.max(1, before.waitingRequests());
    }

    /**
     * Records a publication and returns the snapshot the router will see: in {@link TelemetryMode#OBSERVABLE} what the
     * live worker in front of a real server reports ({@link EngineStats#observable}, the same code), else everything.
     */
    WorkerSnapshot publish(EngineStats engine, long nowMs, TelemetryMode mode) {
        ObservedLoad own = observed.load();
        EngineStats s = mode == TelemetryMode.OBSERVABLE ? engine.observable(own) : engine.withObserved(own);
        lastPublished = engine;
        lastPublishedMs = nowMs;
        boolean limited = rateLimitedUntilMs > 0 && rateLimitedUntilMs > nowMs;
        return WorkerSnapshot.builder(workerId, region)
                .models(Set.of(SimConfig.MODEL))
                .ownedPartitions(ownedPartitions)
                .kvBlocks(s.kvBlocksTotal(), s.kvBlocksUsed())
                .kvBlockTokens(s.kvBlockTokens())
                .kvUsage(s.kvUsage())
                .running(s.runningRequests())
                .waiting(s.waitingRequests())
                .runningPrefill(s.runningPrefill())
                .runningDecode(s.runningDecode())
                .queuedPrefillTokens(s.queuedPrefillTokens())
                .queuedPrefillAttention(s.queuedPrefillAttention())
                .maxRunning(s.maxRunningRequests())
                .prefixHitRate(s.prefixCacheHitRate())
                .tokensPerSecond(s.tokensPerSecond())
                .status(limited ? WorkerHealth.DEGRADED : WorkerHealth.HEALTHY)
                .rateLimitedUntilMs(limited ? rateLimitedUntilMs : 0)
                .observedAtMs(nowMs)
                .pool(engineName)
                .observed(new ObservedWork(own.owedPrefillTokens(), own.owedPrefillRequests(), own.decodingContextTokens(),
                        own.recentTtftMs(), own.decodeMsPerToken()))
                .build();
    }

    /** The KV changes since the last tick as the worker's next KV event, or null if there were none. */
    KvEvent drainKvEvent() {
        KvChanges changes = core.drainKvChanges();
        if (changes.isEmpty() && !clearOnNextEvent) {
            return null;
        }
        boolean cleared = clearOnNextEvent;
        clearOnNextEvent = false;
        return new KvEvent(workerId, kvSequence++, toArray(changes.stored()), toArray(changes.evicted()),
                toArray(changes.offloaded()), toArray(changes.reloaded()), cleared);
    }

    private static long[] toArray(List<Long> hashes) {
        long[] out = new long[hashes.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = hashes.get(i);
        }
        return out;
    }
}
