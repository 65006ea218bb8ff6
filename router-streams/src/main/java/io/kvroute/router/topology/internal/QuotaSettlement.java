package io.kvroute.router.topology.internal;

/**
 * Tokens a finished request of {@code tenant} actually used, sent to the admission task that owns
 * the tenant so it can correct the request's quota reservation; 0 when it never ran (expired,
 * cancelled or refused after admission), which returns the whole reservation.
 */
public record QuotaSettlement(String requestId, String tenant, long actualTokens) {
    public static QuotaSettlement release(String requestId, String tenant) {
        return new QuotaSettlement(requestId, tenant, 0);
    }
}
