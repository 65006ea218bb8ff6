package io.kvroute.router.routing;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Dense int ids for worker ids, shared by the prefix indices and {@link FleetView} of a JVM so a
 * worker found in an index can be looked up in the fleet without string maps on the hot path.
 * Grow-only (a fleet's worker ids are few); ids are assigned in first-seen order. Thread-safe.
 */
final class WorkerIds {
    private static final ConcurrentHashMap<String, Integer> IDS = new ConcurrentHashMap<>();
    private static volatile String[] names = new String[64];
    private static volatile int count;

    private WorkerIds() {
    }

    /** The worker's id, assigning the next one if it has none yet. */
    static int of(String workerId) {
        Integer id = IDS.get(workerId);
        return id != null ? id : assign(workerId);
    }

    /** The worker's id, or -1 if it was never assigned one. */
    static int find(String workerId) {
        Integer id = IDS.get(workerId);
        return id == null ? -1 : id;
    }

    static String name(int id) {
        return names[id];
    }

    /** One more than the largest id assigned so far. */
    static int count() {
        return count;
    }

    private static synchronized int assign(String workerId) {
        Integer existing = IDS.get(workerId);
        if (existing != null) {
            return existing;
        }
        int id = count;
        if (id >= names.length) {
            names = Arrays.copyOf(names, names.length * 2);
        }
        names[id] = workerId;
        IDS.put(workerId, id);
        count = id + 1;
        return id;
    }
}
