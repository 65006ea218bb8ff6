package io.kvroute.router.routing;

/**
 * A worker's own view of its health. HEALTHY takes work; DEGRADED takes work only when no
 * healthy worker fits; DRAINING and DOWN take none. Mirrors the wire enum without depending on it.
 */
public enum WorkerHealth {
    HEALTHY, DEGRADED, DRAINING, DOWN;

    /** Parses a status name; anything unknown is treated as {@link #DOWN}. */
    public static WorkerHealth parse(String name) {
        if (name == null) {
            return DOWN;
        }
        try {
            return valueOf(name);
        } catch (IllegalArgumentException e) {
            return DOWN;
        }
    }
}
