package io.kvroute.router.routing;

import java.util.Locale;

/**
 * A request's scheduling class, from its wire priority: INTERACTIVE is served ahead of BATCH and
 * held to a tighter TTFT target when regions are chosen by price. Anything but INTERACTIVE
 * (including no priority) is BATCH, the wire default.
 */
public enum LatencyClass {
    INTERACTIVE, BATCH;

    public static LatencyClass of(String priority) {
        return priority != null && priority.toUpperCase(Locale.ROOT).equals("INTERACTIVE") ? INTERACTIVE : BATCH;
    }

    public static LatencyClass of(RouteRequest request) {
        return of(request.priority());
    }
}
