package io.kvroute.worker.consumer;

import java.time.Duration;

/** What the dispatch loop needs from the cancellations follower: to know it is up to date. */
public interface CancellationView {
    /** A view that never waits: for tests and for workers run without a follower. */
    CancellationView NONE = (epochMs, timeout) -> true;

    /**
     * Waits until every cancellation written before {@code epochMs} has been read and handed on;
     * false if {@code timeout} passed first.
     */
    boolean awaitReadUpTo(long epochMs, Duration timeout);
}
