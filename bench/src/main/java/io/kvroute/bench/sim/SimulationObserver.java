package io.kvroute.bench.sim;

import io.kvroute.router.routing.RoutingResult;
import io.kvroute.router.routing.WorkerSnapshot;
import java.util.Collection;

/** Sees every routing decision and engine step of a run (tests, tracing, load calibration). Called on the simulation thread. */
@FunctionalInterface
public interface SimulationObserver {
    SimulationObserver NONE = (nowMs, requestIndex, view, result) -> { };

    /**
     * @param requestIndex the request's index in the trace
     * @param view         the worker snapshots the router decided on (as stale as it saw them)
     */
    void onDecision(long nowMs, int requestIndex, Collection<WorkerSnapshot> view, RoutingResult result);

    /** A simulated GPU ran a step from {@code startMs} for {@code durationMs} that prefilled {@code prefillTokens} uncached tokens (0: decode only). */
    default void onStep(int gpu, long startMs, double durationMs, long prefillTokens) {
    }
}
