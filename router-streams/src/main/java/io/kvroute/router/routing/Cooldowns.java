package io.kvroute.router.routing;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Workers and regions that refused work (HTTP 429, quota exhausted) and get none until their
 * cool-down ends. A worker also cools itself by reporting {@link WorkerSnapshot#rateLimitedUntilMs};
 * this class holds what the router learnt from responses, which arrive before the next telemetry.
 * A region marked {@link RegionProfile#sharedRateLimit} is one pool: a 429 from any of its
 * workers cools all of them. Thread-safe, so a response consumer may feed it while decisions read it.
 */
public final class Cooldowns {
    /** Cool-down after a 429 that carried no Retry-After. */
    public static final long DEFAULT_COOLDOWN_MS = 1_000;

    private final Map<String, Long> workers = new ConcurrentHashMap<>();
    private final Map<String, Long> regions = new ConcurrentHashMap<>();
    private final long defaultCooldownMs;

    public Cooldowns() {
        this(DEFAULT_COOLDOWN_MS);
    }

    public Cooldowns(long defaultCooldownMs) {
        if (defaultCooldownMs < 1) {
            throw new IllegalArgumentException("default cool-down must be at least 1 ms, was " + defaultCooldownMs);
        }
        this.defaultCooldownMs = defaultCooldownMs;
    }

    /**
     * Records a rate-limited answer from {@code workerId} in {@code region} received at {@code nowMs}.
     *
     * @param retryAfterMs the advertised Retry-After in ms, or a negative value when there was none
     * @param sharedPool   whether the whole region is one rate-limited pool
     * @return when the cool-down ends
     */
    public long onRateLimited(String workerId, String region, long retryAfterMs, boolean sharedPool, long nowMs) {
        expire(nowMs);
        long until = nowMs + (retryAfterMs >= 0 ? retryAfterMs : defaultCooldownMs);
        workers.merge(workerId, until, Math::max);
        if (sharedPool) {
            regions.merge(region, until, Math::max);
        }
        return until;
    }

    /** Cools a whole region until {@code untilMs} (e.g. its provider's quota is spent for the minute). */
    public void coolRegion(String region, long untilMs) {
        regions.merge(region, untilMs, Math::max);
    }

    /** When the worker may take work again, counting its own telemetry; {@code <= nowMs} means now. */
    public long coolingUntil(WorkerSnapshot worker) {
        long until = worker.rateLimitedUntilMs() > 0 ? worker.rateLimitedUntilMs() : Long.MIN_VALUE;
        Long w = workers.get(worker.workerId());
        if (w != null) {
            until = Math.max(until, w);
        }
        Long r = regions.get(worker.region());
        if (r != null) {
            until = Math.max(until, r);
        }
        return until;
    }

    public boolean cooling(WorkerSnapshot worker, long nowMs) {
        return coolingUntil(worker) > nowMs;
    }

    /** When the region's pool cool-down ends (or ended); 0 when it never had one or it was forgotten. */
    public long regionCoolingUntil(String region) {
        return regions.getOrDefault(region, 0L);
    }

    /**
     * Forgets cool-downs that ended before {@code nowMs}. Done on every {@link #onRateLimited};
     * ended ones otherwise stay (harmless: at most one entry per worker and region that ever
     * refused work, and every reader compares with the time).
     */
    public void expire(long nowMs) {
        workers.values().removeIf(until -> until <= nowMs);
        regions.values().removeIf(until -> until <= nowMs);
    }
}
