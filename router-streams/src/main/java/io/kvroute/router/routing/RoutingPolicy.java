package io.kvroute.router.routing;

import java.util.List;
import java.util.Optional;

/**
 * A routing policy: a function of (request, candidates that passed {@link CandidateFilter}, now).
 * It may read the shared {@link RouterState} (pending load, prefix index) it was created with and
 * keep its own state, updated only through {@link #onPlaced} and {@link #onPeerPlaced}, so the same class runs in the
 * Streams processor, in tests and in a discrete-event simulator.
 */
public interface RoutingPolicy {

    /** The name used in configuration ({@code router.policy}) and in decision records. */
    String name();

    /** Chooses a worker and partition among {@code candidates}; empty if none fits. */
    Optional<Placement> place(RouteRequest request, List<WorkerSnapshot> candidates, long nowMs);

    /**
     * Whether the policy prices a worker's KV usage itself. If so, a worker whose KV usage has
     * reached {@link RoutingSettings#saturationKvUsage} stays a candidate for a request whose
     * prefix it holds (the policy weighs waiting there for KV against copying the prefix
     * elsewhere); otherwise every such worker is left out as saturated.
     */
    default boolean pricesKvUsage() {
        return false;
    }

    /**
     * Whether the policy prices the wait in a worker's queue itself, in the work ahead rather than in requests. If so,
     * the queue limit ({@link RoutingSettings#saturationQueueFactor}) holds for the candidates together: a request waits
     * at the router while they hold their limits' sum, and otherwise the policy weighs each of them; otherwise every
     * worker past its own limit is left out as saturated.
     */
    default boolean pricesQueue() {
        return false;
    }

    /** Called after {@code placement} was accepted, so stateful policies can advance. */
    default void onPlaced(RouteRequest request, Placement placement, long nowMs) {
    }

    /**
     * Called when another router instance placed {@code request} on {@code worker} at
     * {@code decidedAtMs} (before the router state accounts it), so that a stateful policy counts
     * it as one of its own.
     */
    default void onPeerPlaced(RouteRequest request, WorkerSnapshot worker, long decidedAtMs) {
    }
}
