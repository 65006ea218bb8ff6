package io.kvroute.bench.sim;

import io.kvroute.router.routing.RegionCatalog;
import io.kvroute.router.routing.quota.QuotaLimits;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a bench scenario adds to a plain simulation: region outages, pools answering 429, region
 * prices and delays for placement, tenants' residency and quotas, and how the router queues
 * requests it cannot place yet. {@link #NONE} simulates exactly as without conditions.
 *
 * @param regions         delays, prices and TTFT targets the router's policy sees
 * @param tenantRegions   regions each tenant allows (absent: any)
 * @param quotas          per-tenant quotas (absent: none)
 * @param queue           how requests without a candidate wait at the router
 * @param failoverCheckMs how often the router re-dispatches requests stuck on a worker whose telemetry went stale
 */
public record Conditions(List<Outage> outages, List<RateLimitWindow> rateLimits, RegionCatalog regions,
                         Map<String, Set<String>> tenantRegions, Map<String, QuotaLimits> quotas, RouterQueue queue,
                         long failoverCheckMs) {
    public static final long DEFAULT_FAILOVER_CHECK_MS = 100;
    public static final Conditions NONE = new Conditions(List.of(), List.of(), RegionCatalog.empty(), Map.of(), Map.of(),
            RouterQueue.PARKED, DEFAULT_FAILOVER_CHECK_MS);

    /** How requests without a candidate wait at the router. */
    public enum RouterQueue {
        /** The router's parked store: new arrivals try first, parked ones are retried in arrival order. */
        PARKED,
        /** One queue for everyone: interactive first, then arrival order; arrivals wait behind it. */
        FIFO,
        /** Interactive first, then tenants by virtual token counter ({@code FairQueue}). */
        FAIR
    }

    /** The region's workers stop answering (no work done, no telemetry) from {@code fromMs} to {@code toMs}, then restart empty. */
    public record Outage(String region, long fromMs, long toMs) {
    }

    /** The region's pool answers every request with 429 and Retry-After {@code retryAfterMs} from {@code fromMs} to {@code toMs}. */
    public record RateLimitWindow(String region, long fromMs, long toMs, long retryAfterMs) {
    }

    public Conditions {
        outages = List.copyOf(outages);
        rateLimits = List.copyOf(rateLimits);
        Objects.requireNonNull(regions, "regions");
        tenantRegions = Map.copyOf(tenantRegions);
        quotas = Map.copyOf(quotas);
        Objects.requireNonNull(queue, "queue");
        if (failoverCheckMs < 1) {
            throw new IllegalArgumentException("failover check interval must be at least 1 ms, was " + failoverCheckMs);
        }
    }

    public Conditions withOutages(List<Outage> value) {
        return new Conditions(value, rateLimits, regions, tenantRegions, quotas, queue, failoverCheckMs);
    }

    public Conditions withRateLimits(List<RateLimitWindow> value) {
        return new Conditions(outages, value, regions, tenantRegions, quotas, queue, failoverCheckMs);
    }

    public Conditions withRegions(RegionCatalog value) {
        return new Conditions(outages, rateLimits, value, tenantRegions, quotas, queue, failoverCheckMs);
    }

    public Conditions withTenantRegions(Map<String, Set<String>> value) {
        return new Conditions(outages, rateLimits, regions, value, quotas, queue, failoverCheckMs);
    }

    public Conditions withQuotas(Map<String, QuotaLimits> value) {
        return new Conditions(outages, rateLimits, regions, tenantRegions, value, queue, failoverCheckMs);
    }

    public Conditions withQueue(RouterQueue value) {
        return new Conditions(outages, rateLimits, regions, tenantRegions, quotas, value, failoverCheckMs);
    }
}
