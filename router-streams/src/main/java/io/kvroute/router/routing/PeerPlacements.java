package io.kvroute.router.routing;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Placements other router instances made, handed from the thread that reads their decision
 * records to the routing thread, which follows them ({@link Router#followPeer}) before its next
 * decision. Thread-safe. Bounded: when the routing thread falls behind by {@code capacity}
 * placements, newer ones are dropped and counted (telemetry soon shows their load anyway).
 */
public final class PeerPlacements {
    /** One placement of another instance, as its decision record tells it. */
    public record PeerPlacement(RouteRequest request, String workerId, int partition, long decidedAtMs) {
    }

    private final int capacity;
    private final ConcurrentLinkedQueue<PeerPlacement> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicLong followed = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();

    public PeerPlacements(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
    }

    /** An inbox nothing writes to: a router that follows no peers. */
    public static PeerPlacements none() {
        return new PeerPlacements(1);
    }

    /** Queues a peer's placement; false if the inbox is full and it was dropped. */
    public boolean offer(PeerPlacement placement) {
        if (size.incrementAndGet() > capacity) {
            size.decrementAndGet();
            dropped.incrementAndGet();
            return false;
        }
        queue.add(placement);
        return true;
    }

    /**
     * Has {@code router} follow every queued placement on the worker {@code workers} knows by that
     * id (one it does not know yet is skipped); the caller holds whatever serialises calls into the
     * router. Returns how many it followed.
     */
    public int drainInto(Router router, Function<String, WorkerSnapshot> workers) {
        int n = 0;
        PeerPlacement p;
        while ((p = queue.poll()) != null) {
            size.decrementAndGet();
            WorkerSnapshot worker = workers.apply(p.workerId());
            if (worker != null) {
                router.followPeer(p.request(), worker, p.partition(), p.decidedAtMs());
                n++;
            }
        }
        followed.addAndGet(n);
        return n;
    }

    /** Placements waiting for the routing thread. */
    public int queued() {
        return size.get();
    }

    /** Placements followed so far. */
    public long followed() {
        return followed.get();
    }

    /** Placements dropped because the inbox was full. */
    public long dropped() {
        return dropped.get();
    }
}
