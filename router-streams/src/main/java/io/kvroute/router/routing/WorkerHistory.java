package io.kvroute.router.routing;

/**
 * What the kvroute policy remembers of its own placements on one worker:
 * <ul>
 * <li>the arrival rate: requests per ms placed there, an exponentially decaying count with time
 * constant {@code tauMs} (a burst of {@code n} placements reads as {@code n / tauMs} right after
 * it), for how many requests will reach the worker while a prefill runs there;</li>
 * <li>the decode context: a moving average (weight {@value #CONTEXT_SMOOTHING} per placement) of
 * each placement's prompt plus half its output;</li>
 * <li>the backlog: the GPU work (ms, each request's step overhead and decode share included) of
 * each placement and when it reaches the worker, read as a queue draining at one ms per ms, in two
 * ways of which the policy takes the larger. {@link #backlogMs} replays the queue the worker's
 * last telemetry reported forward with the work placed since, so a request placed 300 ms ago
 * counts as mostly done and one placed 5 ms ago as still ahead (the pending-load ledger counts
 * both in full until the next telemetry). {@link #ownBacklogMs} counts the router's placements
 * alone, which keeps counting a prefill the worker has already scheduled: a snapshot taken during
 * a step shows that step's prefill as done although its time has not passed.</li>
 * </ul>
 * Work placed more than {@code graceMs} before a snapshot is in that snapshot (the worker had seen
 * it) and is dropped on read, as is work older than {@code maxAgeMs}. A pure function of the
 * calls made to it; not thread-safe.
 *
 * <p>The placements since telemetry are kept in one ring of longs, three per placement, and those not folded yet are
 * its last {@link #unfolded}: a decision reads this for every candidate, and deques of placement objects were a cache
 * miss per hop at 1,000 workers.
 */
final class WorkerHistory {
    static final double CONTEXT_SMOOTHING = 0.05;
    /** Longs per placement in {@link #ring}. */
    private static final int STRIDE = 3;

    private final double tauMs;
    private final long graceMs;
    private final long maxAgeMs;
    /** Placements since telemetry, oldest first: placed at, arrives at, work (double bits), from slot {@link #head}. */
    private long[] ring = new long[4 * STRIDE];
    private int head;
    private int size;
    /** How many of the last placements {@link #backlogMs} has not folded yet. */
    private int unfolded;
    private long foldObservedAtMs = Long.MIN_VALUE;
    private double foldQueueMs;
    private long foldAtMs;
    private double rate;
    private long rateAtMs;
    private double contextTokens = Double.NaN;
    private double ownQueueMs;
    private long ownQueueAtMs;

    WorkerHistory(double tauMs, long graceMs, long maxAgeMs) {
        if (!(tauMs > 0) || graceMs < 0 || maxAgeMs <= 0) {
            throw new IllegalArgumentException("tauMs and maxAgeMs must be positive and graceMs not negative, were "
                    + tauMs + ", " + maxAgeMs + " and " + graceMs);
        }
        this.tauMs = tauMs;
        this.graceMs = graceMs;
        this.maxAgeMs = maxAgeMs;
    }

    /**
     * A placement at {@code placedAtMs} of {@code workMs} of GPU work reaching the worker at
     * {@code arrivesAtMs}, whose request will decode with about {@code contextTokens} in KV.
     */
    void placed(long placedAtMs, long arrivesAtMs, double workMs, double contextTokens) {
        rate = arrivalsPerMs(placedAtMs) + 1.0 / tauMs;
        rateAtMs = Math.max(rateAtMs, placedAtMs);
        this.contextTokens = Double.isNaN(this.contextTokens) ? contextTokens
                : this.contextTokens + (contextTokens - this.contextTokens) * CONTEXT_SMOOTHING;
        if (workMs > 0) {
            append(placedAtMs, arrivesAtMs, workMs);
            unfolded++;
            long at = Math.max(ownQueueAtMs, arrivesAtMs);
            ownQueueMs = ownBacklogMs(at) + workMs;
            ownQueueAtMs = at;
        }
    }

    /** Placements per ms as of {@code nowMs}. */
    double arrivalsPerMs(long nowMs) {
        return nowMs <= rateAtMs ? rate : rate * Math.exp(-(nowMs - rateAtMs) / tauMs);
    }

    /** Average decode context of recent placements; 0 before the first. */
    double contextTokens() {
        return Double.isNaN(contextTokens) ? 0.0 : contextTokens;
    }

    /**
     * Work still ahead at {@code atMs} on the worker whose snapshot, taken at {@code observedAtMs},
     * showed {@code reportedMs} of queued work, plus what was placed there since. Folded
     * incrementally: the first read of a snapshot replays the placements it has not seen (with the
     * reported queue as that read estimated it), later reads add only the placements made since.
     */
    double backlogMs(long observedAtMs, double reportedMs, long nowMs, long atMs) {
        long ageCutoff = nowMs - maxAgeMs;
        if (observedAtMs != foldObservedAtMs) {
            // a new snapshot: the queue is replayed from its report, with every placement it has not seen
            unfolded = 0;
            dropOlderThan(Math.max(observedAtMs - graceMs, ageCutoff));
            unfolded = size;
            foldObservedAtMs = observedAtMs;
            foldQueueMs = reportedMs;
            foldAtMs = observedAtMs;
            foldUnfolded();
        } else {
            foldUnfolded();
            // long drained by now: forgotten for memory, without replaying the rest
            dropOlderThan(ageCutoff);
        }
        return atMs > foldAtMs ? Math.max(0, foldQueueMs - (atMs - foldAtMs)) : foldQueueMs;
    }

    /** Folds the last {@link #unfolded} placements into the queue, in placement order. */
    private void foldUnfolded() {
        int mask = ring.length / STRIDE - 1;
        for (int i = size - unfolded; i < size; i++) {
            int at = ((head + i) & mask) * STRIDE;
            long arrives = Math.max(foldAtMs, ring[at + 1]);
            foldQueueMs = Math.max(0, foldQueueMs - (arrives - foldAtMs)) + Double.longBitsToDouble(ring[at + 2]);
            foldAtMs = arrives;
        }
        unfolded = 0;
    }

    /** Drops placements from the oldest while they were placed before {@code cutoffMs}; none is left unfolded. */
    private void dropOlderThan(long cutoffMs) {
        int mask = ring.length / STRIDE - 1;
        while (size > 0 && ring[head * STRIDE] < cutoffMs) {
            head = (head + 1) & mask;
            size--;
        }
    }

    private void append(long placedAtMs, long arrivesAtMs, double workMs) {
        int slots = ring.length / STRIDE;
        if (size == slots) {
            long[] grown = new long[ring.length * 2];
            int first = (slots - head) * STRIDE;
            System.arraycopy(ring, head * STRIDE, grown, 0, first);
            System.arraycopy(ring, 0, grown, first, head * STRIDE);
            ring = grown;
            head = 0;
            slots *= 2;
        }
        int at = ((head + size) & (slots - 1)) * STRIDE;
        ring[at] = placedAtMs;
        ring[at + 1] = arrivesAtMs;
        ring[at + 2] = Double.doubleToRawLongBits(workMs);
        size++;
    }

    /** Work still ahead at {@code atMs} counting only the router's own placements. */
    double ownBacklogMs(long atMs) {
        return atMs > ownQueueAtMs ? Math.max(0, ownQueueMs - (atMs - ownQueueAtMs)) : ownQueueMs;
    }
}
