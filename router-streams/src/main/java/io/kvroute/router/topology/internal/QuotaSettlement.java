package io.kvroute.router.topology.internal;

/**
 * Tokens a finished request actually used, sent keyed by its tenant to the admission task that
 * owns the tenant so it can correct the request's quota reservation; 0 when it never ran
 * (expired, cancelled or refused after admission), which returns the whole reservation. The
 * tenant is the record key only: it is not in the value.
 */
public record QuotaSettlement(String requestId, long actualTokens) {
    public static QuotaSettlement release(String requestId) {
        return new QuotaSettlement(requestId, 0);
    }
}
