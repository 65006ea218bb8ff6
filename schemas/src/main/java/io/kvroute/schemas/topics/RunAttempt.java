package io.kvroute.schemas.topics;

/**
 * The attempt number a worker stamps on a run's response events. Readers keep only the highest
 * attempt of a request, so a re-run must outrank every earlier run, including one a dead worker
 * streamed part of: the router's dispatch attempt (a re-placement raises it) fills the high bits
 * and the region consumer group's generation (every rebalance raises it, and a record is only run
 * again after one) the low 16 bits. Part of the responses topic's contract: workers stamp it, the
 * router answers with it, readers rank by it.
 */
public final class RunAttempt {
    static final int GENERATION_BITS = 16;
    private static final int GENERATION_MASK = (1 << GENERATION_BITS) - 1;

    private RunAttempt() {
    }

    /** The router's dispatch attempt inside a run attempt. */
    public static int dispatchAttemptOf(int runAttempt) {
        return runAttempt >>> GENERATION_BITS;
    }

    /** The attempt of the router's own answer for dispatch attempt {@code dispatchAttempt}: above every run of the ones before. */
    public static int routerAnswer(int dispatchAttempt) {
        return of(dispatchAttempt, 0);
    }

    public static int of(int dispatchAttempt, int groupGeneration) {
        if (dispatchAttempt < 1 || dispatchAttempt >= 1 << (31 - GENERATION_BITS)) {
            throw new IllegalArgumentException("dispatch attempt out of range: " + dispatchAttempt);
        }
        // generation -1 means no group membership yet (never the case for a polled record)
        return (dispatchAttempt << GENERATION_BITS) | (Math.max(0, groupGeneration) & GENERATION_MASK);
    }
}
