package io.kvroute.router.routing;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The regions' network delays and prices, and the TTFT each latency class must meet. The kvroute
 * policy adds a region's round trip to its TTFT estimate and, when prices differ, picks the
 * cheapest region whose estimate meets the request's target, spilling over to dearer regions (and
 * finally to the lowest estimate) as the cheap one saturates. {@link #empty()} (every delay and
 * cost 0) leaves placement exactly as without a catalog.
 */
public final class RegionCatalog {
    public static final long DEFAULT_INTERACTIVE_TTFT_TARGET_MS = 2_000;
    public static final long DEFAULT_BATCH_TTFT_TARGET_MS = 30_000;
    private static final RegionCatalog EMPTY = new RegionCatalog(java.util.List.of(),
            DEFAULT_INTERACTIVE_TTFT_TARGET_MS, DEFAULT_BATCH_TTFT_TARGET_MS);

    private final Map<String, RegionProfile> regions = new TreeMap<>();
    private final long interactiveTargetMs;
    private final long batchTargetMs;
    private final boolean pricesDiffer;

    public RegionCatalog(Collection<RegionProfile> profiles, long interactiveTargetMs, long batchTargetMs) {
        if (interactiveTargetMs < 1 || batchTargetMs < 1) {
            throw new IllegalArgumentException("TTFT targets must be at least 1 ms, were " + interactiveTargetMs
                    + " and " + batchTargetMs);
        }
        for (RegionProfile p : profiles) {
            if (regions.put(p.name(), p) != null) {
                throw new IllegalArgumentException("region " + p.name() + " appears twice in the catalog");
            }
        }
        this.interactiveTargetMs = interactiveTargetMs;
        this.batchTargetMs = batchTargetMs;
        this.pricesDiffer = regions.values().stream().mapToDouble(RegionProfile::costPerMillionTokens).distinct().count() > 1;
    }

    public static RegionCatalog empty() {
        return EMPTY;
    }

    public Optional<RegionProfile> profile(String region) {
        return Optional.ofNullable(regions.get(region));
    }

    /** One-way delay to the region; 0 when not in the catalog. */
    public long delayMs(String region) {
        RegionProfile p = regions.get(region);
        return p == null ? 0 : p.delayMs();
    }

    /** Price per million tokens in the region; 0 when not in the catalog. */
    public double costPerMillionTokens(String region) {
        RegionProfile p = regions.get(region);
        return p == null ? 0.0 : p.costPerMillionTokens();
    }

    public boolean sharedRateLimit(String region) {
        RegionProfile p = regions.get(region);
        return p != null && p.sharedRateLimit();
    }

    /** Whether some region costs more than another: only then does price steer placement. */
    public boolean pricesDiffer() {
        return pricesDiffer;
    }

    public long ttftTargetMs(LatencyClass latencyClass) {
        return latencyClass == LatencyClass.INTERACTIVE ? interactiveTargetMs : batchTargetMs;
    }

    public long interactiveTargetMs() {
        return interactiveTargetMs;
    }

    public long batchTargetMs() {
        return batchTargetMs;
    }
}
