package io.kvroute.router.topology.internal;

/**
 * When the router re-places requests it dispatched to a region that went silent: after
 * {@code patienceMs} without telemetry from any of that region's workers, checked every
 * {@code checkMs}.
 */
public record Replacement(long patienceMs, long checkMs) {
    public Replacement {
        if (patienceMs < 1 || checkMs < 1) {
            throw new IllegalArgumentException("re-placement patience and check interval must be >= 1 ms, were "
                    + patienceMs + " and " + checkMs);
        }
    }
}
