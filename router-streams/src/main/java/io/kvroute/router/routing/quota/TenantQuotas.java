package io.kvroute.router.routing.quota;

import io.kvroute.router.routing.RouteRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Requests-per-minute and tokens-per-minute quotas per tenant, as token buckets that refill
 * continuously (a full bucket holds one minute's allowance). Admitting a request takes one request
 * and reserves its prompt plus max output tokens; {@link #settle} corrects the reservation by the
 * tokens actually used (refunding the unused output, or charging the overrun as debt). A request
 * over quota WAITs with the time until the buckets hold enough, or is REJECTED, by the tenant's
 * {@link OverQuota}; it is REJECTED anyway when it needs more than a whole minute's tokens or would
 * wait past its deadline. Clock-free (every call takes now) and single-threaded: one instance
 * per admission partition, with requests keyed by tenant so each tenant's state lives in one place.
 */
public final class TenantQuotas {
    private static final double MS_PER_MINUTE = 60_000.0;

    private final Map<String, QuotaLimits> limits;
    private final QuotaLimits defaults;
    /** Tenants kept before a new one sweeps out those a fresh tenant would equal. */
    static final int SWEEP_TENANTS_AT = 1_024;

    private final Map<String, Buckets> buckets = new HashMap<>();
    private final List<String> forgotten = new ArrayList<>();
    private final Map<String, Reservation> reservations = new HashMap<>();

    /** @param defaults limits of a tenant not in {@code limits} ({@link QuotaLimits#NONE} for none) */
    public TenantQuotas(Map<String, QuotaLimits> limits, QuotaLimits defaults) {
        this.limits = Map.copyOf(limits);
        this.defaults = defaults;
    }

    public static TenantQuotas unlimited() {
        return new TenantQuotas(Map.of(), QuotaLimits.NONE);
    }

    public QuotaLimits limits(String tenant) {
        return limits.getOrDefault(tenant, defaults);
    }

    /** Tokens a request reserves at admission: its prompt plus its max output. */
    public static long reservedTokens(RouteRequest request) {
        return (long) request.promptTokens() + Math.max(0, request.maxTokens());
    }

    /** Admits the request (taking its reservation), or says how long to wait, or rejects it. */
    public QuotaDecision tryAcquire(RouteRequest request, long nowMs) {
        QuotaLimits quota = limits(request.tenant());
        if (quota.unlimited()) {
            return QuotaDecision.admit();
        }
        long tokens = reservedTokens(request);
        if (tokens > quota.tokensPerMinute()) {
            return QuotaDecision.reject("request needs " + tokens + " tokens, more than tenant " + request.tenant()
                    + "'s " + quota.tokensPerMinute() + " tokens per minute");
        }
        Buckets b = bucketsOf(request.tenant(), quota, nowMs);
        b.refill(quota, nowMs);
        long waitMs = Math.max(b.waitFor(b.requests, 1, quota.requestsPerMinute()), b.waitFor(b.tokens, tokens, quota.tokensPerMinute()));
        if (waitMs == 0) {
            b.requests -= 1;
            b.tokens -= tokens;
            reservations.put(request.requestId(), new Reservation(request.tenant(), tokens));
            b.open++;
            return QuotaDecision.admit();
        }
        String limit = b.requests < 1 ? quota.requestsPerMinute() + " requests per minute"
                : quota.tokensPerMinute() + " tokens per minute";
        String reason = "tenant " + request.tenant() + " over its quota of " + limit;
        if (quota.overQuota() == OverQuota.REJECT) {
            return QuotaDecision.reject(reason);
        }
        if (request.hasDeadline() && nowMs + waitMs > request.deadlineMs()) {
            return QuotaDecision.reject(reason + " until past the request's deadline");
        }
        return QuotaDecision.waitFor(waitMs, reason);
    }

    /** Corrects an admitted request's reservation by the tokens it used (prompt + output); unknown ids are ignored. */
    public void settle(String requestId, long actualTokens, long nowMs) {
        Reservation r = reservations.remove(requestId);
        if (r == null) {
            return;
        }
        QuotaLimits quota = limits(r.tenant());
        Buckets b = buckets.get(r.tenant());
        if (b != null) {
            b.open = Math.max(0, b.open - 1);
            b.refill(quota, nowMs);
            b.tokens = Math.min(quota.tokensPerMinute(), b.tokens + r.tokens() - Math.max(0, actualTokens));
        }
    }

    /** Settles a request that used nothing (failed or rejected before running). */
    public void release(String requestId, long nowMs) {
        settle(requestId, 0, nowMs);
    }

    /** Admitted requests not yet settled. */
    public int openReservations() {
        return reservations.size();
    }

    /** Tokens the tenant may reserve at {@code nowMs} without waiting (negative while in debt). */
    public double availableTokens(String tenant, long nowMs) {
        QuotaLimits quota = limits(tenant);
        Buckets b = bucketsOf(tenant, quota, nowMs);
        b.refill(quota, nowMs);
        return b.tokens;
    }

    /** A tenant's bucket levels at {@code refilledAtMs}, to keep them across restarts ({@link #restoreLevels}). */
    public record Levels(double requests, double tokens, long refilledAtMs) {
    }

    /** The tenant's bucket levels as last changed, or empty if it never acquired (full buckets). */
    public Optional<Levels> levels(String tenant) {
        Buckets b = buckets.get(tenant);
        return b == null ? Optional.empty() : Optional.of(new Levels(b.requests, b.tokens, b.refilledAtMs));
    }

    /** Sets the tenant's bucket levels, as read back from where {@link #levels} was saved. */
    public void restoreLevels(String tenant, Levels levels) {
        Buckets b = new Buckets(limits(tenant), levels.refilledAtMs());
        b.requests = Math.min(levels.requests(), limits(tenant).requestsPerMinute());
        b.tokens = Math.min(levels.tokens(), limits(tenant).tokensPerMinute());
        buckets.put(tenant, b);
    }

    /** Tokens reserved for an admitted, unsettled request, or empty. */
    public OptionalLong reservedTokens(String requestId) {
        Reservation r = reservations.get(requestId);
        return r == null ? OptionalLong.empty() : OptionalLong.of(r.tokens());
    }

    /** Re-opens an admitted request's reservation, as read back after a restart, so its settlement still counts. */
    public void restoreReservation(String requestId, String tenant, long tokens) {
        reservations.put(requestId, new Reservation(tenant, tokens));
        Buckets b = buckets.get(tenant);
        if (b != null) {
            b.open++;
        }
    }

    /**
     * The tenant's buckets, made full if it has none. Before a new tenant's are made past {@value #SWEEP_TENANTS_AT}
     * tenants, the buckets a fresh tenant would equal are dropped (full again and no reservation open): tenant names come
     * from requests, so the map must not grow with them.
     */
    private Buckets bucketsOf(String tenant, QuotaLimits quota, long nowMs) {
        Buckets b = buckets.get(tenant);
        if (b != null) {
            return b;
        }
        if (buckets.size() >= SWEEP_TENANTS_AT) {
            buckets.entrySet().removeIf(e -> {
                boolean idle = e.getValue().isIdleAndFull(limits(e.getKey()), nowMs);
                if (idle) {
                    forgotten.add(e.getKey());
                }
                return idle;
            });
        }
        b = new Buckets(quota, nowMs);
        buckets.put(tenant, b);
        return b;
    }

    /** The tenants whose buckets were forgotten since the last call, for a saved copy of the levels to drop them too. */
    public List<String> drainForgotten() {
        if (forgotten.isEmpty()) {
            return List.of();
        }
        List<String> drained = List.copyOf(forgotten);
        forgotten.clear();
        return drained;
    }

    /** Tenants whose bucket levels are kept (bounded: see {@link #bucketsOf}). */
    int tenantsKept() {
        return buckets.size();
    }

    private record Reservation(String tenant, long tokens) {
    }

    /** A tenant's two buckets, full at one minute's allowance. */
    private static final class Buckets {
        double requests;
        double tokens;
        long refilledAtMs;
        /** Reservations of this tenant not yet settled. */
        int open;

        boolean isIdleAndFull(QuotaLimits quota, long nowMs) {
            refill(quota, nowMs);
            return open == 0 && requests >= quota.requestsPerMinute() && tokens >= quota.tokensPerMinute();
        }

        Buckets(QuotaLimits quota, long nowMs) {
            requests = quota.requestsPerMinute();
            tokens = quota.tokensPerMinute();
            refilledAtMs = nowMs;
        }

        void refill(QuotaLimits quota, long nowMs) {
            long elapsed = Math.max(0, nowMs - refilledAtMs);
            refilledAtMs = Math.max(refilledAtMs, nowMs);
            requests = Math.min(quota.requestsPerMinute(), requests + elapsed * quota.requestsPerMinute() / MS_PER_MINUTE);
            tokens = Math.min(quota.tokensPerMinute(), tokens + elapsed * quota.tokensPerMinute() / MS_PER_MINUTE);
        }

        /** Ms until {@code level} reaches {@code needed} at {@code perMinute}; 0 if it already has. */
        long waitFor(double level, double needed, long perMinute) {
            if (level >= needed || perMinute == QuotaLimits.UNLIMITED) {
                return 0;
            }
            return (long) Math.ceil((needed - level) * MS_PER_MINUTE / perMinute);
        }
    }
}
