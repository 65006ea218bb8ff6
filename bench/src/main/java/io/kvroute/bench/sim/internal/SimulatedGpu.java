package io.kvroute.bench.sim.internal;

import io.kvroute.bench.sim.SimConfig;
import io.kvroute.router.routing.KvEvent;
import io.kvroute.router.routing.WorkerHealth;
import io.kvroute.router.routing.WorkerSnapshot;
import io.kvroute.worker.engine.EngineStats;
import io.kvroute.worker.engine.KvChanges;
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
 * the KV events drained on the same tick.
 */
final class SimulatedGpu {
    static final double KV_USAGE_CHANGE = 0.05;
    static final int CHECKS_PER_INTERVAL = 5;

    final int index;
    final String workerId;
    final String region;
    final int slot;
    final long delayMs;
    final EngineCore core;
    int inTransit;
    boolean stepScheduled;
    private final List<Integer> ownedPartitions;
    private EngineStats lastPublished;
    private long lastPublishedMs;
    private long kvSequence;

    SimulatedGpu(int index, String region, int slot, long delayMs, CostModel costModel, EngineLimits limits) {
        this.index = index;
        this.workerId = region + "-gpu-" + slot;
        this.region = region;
        this.slot = slot;
        this.delayMs = delayMs;
        this.core = new EngineCore(costModel, limits);
        this.ownedPartitions = List.of(slot);
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

    /** Records a publication and returns the snapshot the router will see. */
    WorkerSnapshot publish(EngineStats s, long nowMs) {
        lastPublished = s;
        lastPublishedMs = nowMs;
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
                .maxRunning(s.maxRunningRequests())
                .prefixHitRate(s.prefixCacheHitRate())
                .tokensPerSecond(s.tokensPerSecond())
                .status(WorkerHealth.HEALTHY)
                .observedAtMs(nowMs)
                .build();
    }

    /** The KV changes since the last tick as the worker's next KV event, or null if there were none. */
    KvEvent drainKvEvent() {
        KvChanges changes = core.drainKvChanges();
        if (changes.isEmpty()) {
            return null;
        }
        return new KvEvent(workerId, kvSequence++, toArray(changes.stored()), toArray(changes.evicted()), false);
    }

    private static long[] toArray(List<Long> hashes) {
        long[] out = new long[hashes.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = hashes.get(i);
        }
        return out;
    }
}
