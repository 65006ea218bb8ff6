package io.kvroute.router.topology.internal;

/**
 * When the router re-places requests it dispatched to a region that went silent: after
 * {@code patienceMs} without telemetry from any of that region's workers, checked every
 * {@code checkMs}. A dispatched request whose result has not come {@code forgetAfterMs} after
 * its dispatch is given up (answered FAILED, and no longer tracked; its result was lost to the
 * dead-letter topic, say): it would otherwise be re-placed at every outage of its region, for ever.
 */
public record Replacement(long patienceMs, long checkMs, long forgetAfterMs) {
    /** Silent regions are looked for every second, or as often as the patience if it is shorter. */
    static final long MAX_CHECK_MS = 1_000;

    public static Replacement of(long patienceMs, long forgetAfterMs) {
        return new Replacement(patienceMs, Math.min(MAX_CHECK_MS, patienceMs), forgetAfterMs);
    }

    public Replacement {
        if (patienceMs < 1 || checkMs < 1 || forgetAfterMs < 1) {
            throw new IllegalArgumentException("re-placement patience, check interval and forget-after must be >= 1 ms, were "
                    + patienceMs + ", " + checkMs + " and " + forgetAfterMs);
        }
    }

    /** How often the in-flight store is scanned for requests to forget: a few times per {@code forgetAfterMs}. */
    public long forgetCheckMs() {
        return Math.max(checkMs, forgetAfterMs / 4);
    }
}
