package io.kvroute.router.topology.internal;

/**
 * When the routing processor asks Kafka Streams to commit. While requests are routed soon after they were written,
 * every {@code caughtUpMs}, so a dispatch is readable by its worker that soon. While the router is behind (a request
 * waited {@code behindAfterMs} or more before it was routed), it asks for nothing and Streams commits at its own, longer
 * interval: one transaction then carries more dispatches for each partition it writes, and every partition a
 * transaction writes costs a commit marker and a round of the producer's per-partition work.
 *
 * @param caughtUpMs    the commit interval while caught up; 0 never asks (Streams' interval alone)
 * @param behindAfterMs a request that waited this long before routing means a backlog
 */
public record CommitPacing(long caughtUpMs, long behindAfterMs) {
    public static final CommitPacing NONE = new CommitPacing(0, 0);

    public CommitPacing {
        if (caughtUpMs < 0 || behindAfterMs < 0) {
            throw new IllegalArgumentException("commit intervals must be >= 0, were " + caughtUpMs + " and " + behindAfterMs);
        }
    }

    /** Whether to ask for a commit at {@code nowMs}, the previous ask at {@code lastAskedMs}, for output of a request that waited {@code waitedMs}. */
    public boolean shouldAsk(long nowMs, long lastAskedMs, long waitedMs) {
        return caughtUpMs > 0 && waitedMs < behindAfterMs && nowMs - lastAskedMs >= caughtUpMs;
    }
}
