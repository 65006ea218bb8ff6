package io.kvroute.router.topology.internal;

/**
 * When the routing processors ask Kafka Streams to commit. While requests are routed soon after they were written,
 * every {@code caughtUpMs}, so a dispatch is readable by its worker that soon. While the router is behind (a request
 * waited {@code behindAfterMs} or more before it was routed), nobody asks and Streams commits at its own, longer
 * interval: one transaction then carries more dispatches for each partition it writes, and every partition a
 * transaction writes costs a commit marker and a round of the producer's per-partition work.
 *
 * <p>One instance serves every routing task of an application instance, and keeps one ask clock per stream thread: a
 * thread commits all its tasks in one transaction, so one ask per interval is enough. With a clock per task, four
 * tasks asked in turn every 12-20 ms instead of every 50, and at a steady 1,000 requests/s the thread spent most of its
 * time committing (p50 169 ms, p99 963 ms against 57 / 126 ms with Streams' 50 ms interval).
 */
public final class CommitPacing {
    public static final CommitPacing NONE = new CommitPacing(0, 0);
    private static final long NEVER = Long.MIN_VALUE / 2;

    private final long caughtUpMs;
    private final long behindAfterMs;
    /** The calling stream thread's last ask, shared by that thread's tasks. */
    private final ThreadLocal<long[]> lastAskedMs = ThreadLocal.withInitial(() -> new long[] {NEVER});

    /**
     * @param caughtUpMs    the commit interval while caught up; 0 never asks (Streams' interval alone)
     * @param behindAfterMs a request that waited this long before routing means a backlog
     */
    public CommitPacing(long caughtUpMs, long behindAfterMs) {
        if (caughtUpMs < 0 || behindAfterMs < 0) {
            throw new IllegalArgumentException("commit intervals must be >= 0, were " + caughtUpMs + " and " + behindAfterMs);
        }
        this.caughtUpMs = caughtUpMs;
        this.behindAfterMs = behindAfterMs;
    }

    /** Whether this paces commits at all (else Streams' own interval decides). */
    public boolean paces() {
        return caughtUpMs > 0;
    }

    public long caughtUpMs() {
        return caughtUpMs;
    }

    /**
     * Whether the calling thread should ask for a commit at {@code nowMs}, for output of a request that waited
     * {@code waitedMs}; a yes counts as this thread's ask.
     */
    public boolean askNow(long nowMs, long waitedMs) {
        long[] last = lastAskedMs.get();
        if (!shouldAsk(nowMs, last[0], waitedMs)) {
            return false;
        }
        last[0] = nowMs;
        return true;
    }

    /**
     * Whether to ask at {@code nowMs}, the previous ask at {@code lastAskedMs}, for output of a request that waited
     * {@code waitedMs}: every {@code caughtUpMs}, or every half of that wait if longer. A router falling behind at a
     * steady rate then commits less often and catches up, and a request's output waits at most half again what the
     * request had waited.
     */
    boolean shouldAsk(long nowMs, long lastAskedMs, long waitedMs) {
        return caughtUpMs > 0 && waitedMs < behindAfterMs && nowMs - lastAskedMs >= Math.max(caughtUpMs, waitedMs / 2);
    }
}
