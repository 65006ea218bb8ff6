package io.kvroute.router.routing;

import java.util.HashMap;
import java.util.Map;

/**
 * One-way delay from each region to the router, learnt from telemetry: the smallest age
 * ({@code now − observedAtMs}) at which the router has seen a snapshot from that region, over a
 * sliding window of two {@link #WINDOW_MS} buckets, so a delay that grows is followed within
 * two windows. A snapshot is never seen younger than its transit time, and with decisions every
 * few milliseconds the freshest one is seen almost on arrival. Used by the kvroute policy when
 * the {@link RegionCatalog} does not give the region's delay. Ages below 0 (worker clock ahead)
 * count as 0; estimates are capped at {@link #MAX_DELAY_MS}. Not thread-safe: one per policy.
 */
final class TransitDelays {
    static final long WINDOW_MS = 10_000;
    static final long MAX_DELAY_MS = 1_000;

    private final Map<String, long[]> byRegion = new HashMap<>();
    private String lastRegion;
    private long[] lastWindows;

    /** Notes that {@code worker}'s snapshot is seen at {@code nowMs}. */
    void observe(WorkerSnapshot worker, long nowMs) {
        long age = Math.min(MAX_DELAY_MS, Math.max(0, worker.ageMs(nowMs)));
        long bucket = Math.floorDiv(nowMs, WINDOW_MS);
        long[] w;
        if (worker.region().equals(lastRegion)) {
            w = lastWindows;
        } else {
            // no computeIfAbsent: its capturing lambda was allocated for every candidate of every decision
            w = byRegion.get(worker.region());
            if (w == null) {
                w = new long[] {bucket, Long.MAX_VALUE, Long.MAX_VALUE};
                byRegion.put(worker.region(), w);
            }
            lastRegion = worker.region();
            lastWindows = w;
        }
        if (bucket > w[0]) {
            w[2] = bucket == w[0] + 1 ? w[1] : Long.MAX_VALUE;
            w[1] = Long.MAX_VALUE;
            w[0] = bucket;
        }
        w[1] = Math.min(w[1], age);
    }

    /** Estimated one-way delay of {@code region}; 0 if nothing was seen from it. */
    long delayMs(String region) {
        long[] w = byRegion.get(region);
        if (w == null) {
            return 0;
        }
        long min = Math.min(w[1], w[2]);
        return min == Long.MAX_VALUE ? 0 : min;
    }
}
