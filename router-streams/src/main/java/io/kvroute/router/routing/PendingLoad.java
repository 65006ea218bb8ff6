package io.kvroute.router.routing;

/** Load the router placed on a worker that its last telemetry does not show yet. */
public record PendingLoad(int requests, long prefillTokens, long kvBlocks) {
    public static final PendingLoad NONE = new PendingLoad(0, 0, 0);
}
