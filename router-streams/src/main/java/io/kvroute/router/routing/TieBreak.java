package io.kvroute.router.routing;

import java.util.Comparator;

/**
 * How a router instance orders workers whose scores tie. With salt 0 (one instance, the
 * simulator's first) by id; otherwise by a hash of the id salted with the instance, so that
 * instances deciding at the same moment on the same telemetry (idle workers all tie) do not all
 * pick the same worker before they hear of each other's placements.
 */
public final class TieBreak {
    public static final TieBreak BY_ID = new TieBreak(0);

    private final long salt;
    private final Comparator<String> workerIds;

    public TieBreak(long salt) {
        this.salt = salt == 0 ? 0 : mix(salt);
        this.workerIds = salt == 0 ? Comparator.naturalOrder()
                : Comparator.comparingLong(this::key).thenComparing(Comparator.naturalOrder());
    }

    /** The instance's tie-break for the router instance {@code instance} ("" for none: by id). */
    public static TieBreak forInstance(String instance) {
        return instance.isEmpty() ? BY_ID : new TieBreak(instance.hashCode() | 1L << 40);
    }

    /** Worker ids in this instance's order. */
    public Comparator<String> workerIds() {
        return workerIds;
    }

    /** Whether worker {@code a} goes before worker {@code b} when they tie. */
    public boolean before(String a, String b) {
        return workerIds.compare(a, b) < 0;
    }

    /** One of {@code choices} (0 for none or one) for {@code requestId}: instances pick differently, each always alike. */
    public int pick(String requestId, int choices) {
        return choices <= 1 ? 0 : (int) Math.floorMod(key(requestId), (long) choices);
    }

    /** A worker id's (or a request id's) place in this instance's order. */
    private long key(String id) {
        return mix(mix(id.hashCode()) ^ salt);
    }

    /** SplitMix64's finalizer: nearby inputs (consecutive worker ids, instance ids) give unrelated outputs. */
    private static long mix(long x) {
        long z = (x + 0x9E3779B97F4A7C15L) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
