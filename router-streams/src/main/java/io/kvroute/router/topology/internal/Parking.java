package io.kvroute.router.topology.internal;

/**
 * How requests with no candidate wait in the router: retried every {@code retryMs}, rejected
 * (NO_CAPACITY) after {@code maxMs}, and at once when {@code maxCount} already wait, so an outage
 * of the whole fleet cannot grow the parked store (and each retry pass) without bound.
 */
public record Parking(long retryMs, long maxMs, long maxCount) {
    public Parking {
        if (retryMs < 1 || maxMs < 1 || maxCount < 1) {
            throw new IllegalArgumentException("parking limits must be positive: " + this);
        }
    }
}
