package io.kvroute.router.routing;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Dense int ids for worker ids, shared by the prefix indices and {@link FleetView} of a JVM so a
 * worker found in an index can be looked up in the fleet without string maps on the hot path.
 * Grow-only (a fleet's worker ids are few); ids are assigned in first-seen order. Each id also has
 * a rank, its worker id's position in lexicographic order, so a decision orders its candidates by
 * worker id comparing ints: comparing the strings, each behind two pointers, was a fifth of a
 * decision's time at 1,000 workers. Thread-safe.
 */
final class WorkerIds {
    private static final ConcurrentHashMap<String, Integer> IDS = new ConcurrentHashMap<>();
    private static volatile String[] names = new String[64];
    private static volatile int count;
    /** Ids in lexicographic order of their names; written under the class lock only. */
    private static int[] byName = new int[64];
    /** Each id's index in {@link #byName}; replaced, never modified, so readers see a consistent array. */
    private static volatile int[] ranks = new int[0];

    private WorkerIds() {
    }

    /** The worker's id, assigning the next one if it has none yet. */
    static int of(String workerId) {
        Integer id = IDS.get(workerId);
        return id != null ? id : assign(workerId);
    }

    /**
     * The one String instance this JVM keeps for {@code workerId}, assigning it an id if it has none. Snapshots hold
     * it (and its id, {@link WorkerSnapshot#denseId}), so maps keyed by worker id find their key by identity: each telemetry
     * record decodes a new String, and comparing its characters to the key's, both cold in a fleet of 1,000 workers,
     * was a seventh of the routing thread.
     */
    static String canonical(String workerId) {
        // the id first: assigning it may replace the names array, which names[of(..)] would read before
        int id = of(workerId);
        return names[id];
    }

    /** The worker's id, or -1 if it was never assigned one. */
    static int find(String workerId) {
        Integer id = IDS.get(workerId);
        return id == null ? -1 : id;
    }

    static String name(int id) {
        return names[id];
    }

    /**
     * Each assigned id's rank: {@code rank(a) < rank(b)} exactly when {@code name(a)} sorts before
     * {@code name(b)} ({@link String#compareTo}). Covers every id assigned before the call.
     */
    static int[] ranks() {
        return ranks;
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
        insertByName(id, workerId);
        IDS.put(workerId, id);
        count = id + 1;
        return id;
    }

    /** O(fleet) per new worker id, which is rare; the ranks are republished whole. */
    private static void insertByName(int id, String workerId) {
        int low = 0;
        int high = id - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (names[byName[mid]].compareTo(workerId) < 0) {
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        if (id >= byName.length) {
            byName = Arrays.copyOf(byName, byName.length * 2);
        }
        System.arraycopy(byName, low, byName, low + 1, id - low);
        byName[low] = id;
        int[] next = new int[id + 1];
        for (int i = 0; i <= id; i++) {
            next[byName[i]] = i;
        }
        ranks = next;
    }
}
