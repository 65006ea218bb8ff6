package io.kvroute.router.routing.quota;

/**
 * What {@link TenantQuotas#tryAcquire} decided.
 *
 * @param retryAfterMs for WAIT: when the quota will have room for the request, from now
 * @param reason       for WAIT and REJECT: which limit, in words (no prompt content)
 */
public record QuotaDecision(Outcome outcome, long retryAfterMs, String reason) {
    public enum Outcome { ADMIT, WAIT, REJECT }

    private static final QuotaDecision ADMITTED = new QuotaDecision(Outcome.ADMIT, 0, "");

    public static QuotaDecision admit() {
        return ADMITTED;
    }

    public static QuotaDecision waitFor(long retryAfterMs, String reason) {
        return new QuotaDecision(Outcome.WAIT, retryAfterMs, reason);
    }

    public static QuotaDecision reject(String reason) {
        return new QuotaDecision(Outcome.REJECT, 0, reason);
    }

    public boolean admitted() {
        return outcome == Outcome.ADMIT;
    }
}
