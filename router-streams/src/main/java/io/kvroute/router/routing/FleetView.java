package io.kvroute.router.routing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fleet as the router knows it, kept up to date one worker at a time: each worker's latest
 * snapshot, and per (model, region) the workers serving that model there. A decision reads the
 * lists for its request's model and regions ({@link #eligible}) instead of filtering the whole
 * fleet, so its cost does not grow with the fleet.
 *
 * <p>Thread-safe: {@link #put} and {@link #remove} are serialised (one writer in practice, the
 * telemetry consumer); readers are lock-free. A new snapshot of a worker whose models and region
 * did not change costs one array write; a change of membership copies the affected lists.
 * List order is the order workers joined, so the same updates give the same lists.
 */
public final class FleetView {
    /**
     * Written under this view's monitor, read without it: a snapshot is an immutable record, so a reader sees one whole
     * (final fields), at worst one a moment older than the latest, as telemetry is anyway; every read starts from a
     * volatile read of this field, so none is held across decisions, and a worker in {@link #members} (volatile,
     * written after its snapshot) is seen with its snapshot. Plain reads, not an AtomicReferenceArray's: on C1, which
     * the local stack runs, its reads (a VarHandle call and a cast, not inlined) were 3.7 % of the routing thread at
     * 1,000 GPUs.
     */
    private volatile WorkerSnapshot[] byId = new WorkerSnapshot[64];
    private volatile int[] members = new int[0];
    private volatile Map<String, Map<String, int[]>> byModelRegion = Map.of();

    /** A view of {@code workers}, added in iteration order (a later snapshot of the same worker wins). */
    public static FleetView of(Collection<WorkerSnapshot> workers) {
        FleetView view = new FleetView();
        Map<String, Map<String, IntList>> lists = new HashMap<>();
        IntList members = new IntList();
        view.ensureCapacity(WorkerIds.count() + workers.size());
        for (WorkerSnapshot snapshot : workers) {
            int id = WorkerIds.of(snapshot.workerId());
            view.ensureCapacity(id);
            WorkerSnapshot old = view.byId[id];
            view.byId[id] = snapshot;
            if (old != null) {
                if (old.models().equals(snapshot.models()) && old.region().equals(snapshot.region())) {
                    continue;
                }
                for (String model : old.models()) {
                    lists.get(model).get(old.region()).remove(id);
                }
            } else {
                members.add(id);
            }
            for (String model : snapshot.models()) {
                lists.computeIfAbsent(model, m -> new HashMap<>()).computeIfAbsent(snapshot.region(), r -> new IntList()).add(id);
            }
        }
        Map<String, Map<String, int[]>> groups = new HashMap<>();
        lists.forEach((model, regions) -> {
            Map<String, int[]> byRegion = new HashMap<>();
            regions.forEach((region, ids) -> byRegion.put(region, ids.toArray()));
            groups.put(model, byRegion);
        });
        view.byModelRegion = groups;
        view.members = members.toArray();
        return view;
    }

    /** Records a worker's latest snapshot (adding the worker if new). */
    public synchronized void put(WorkerSnapshot snapshot) {
        int id = WorkerIds.of(snapshot.workerId());
        ensureCapacity(id);
        WorkerSnapshot old = byId[id];
        byId[id] = snapshot;
        if (old == null) {
            members = append(members, id);
            join(id, snapshot);
        } else if (!old.models().equals(snapshot.models()) || !old.region().equals(snapshot.region())) {
            leave(id, old);
            join(id, snapshot);
        }
    }

    /** Records many snapshots, in iteration order. */
    public synchronized void putAll(Collection<WorkerSnapshot> snapshots) {
        for (WorkerSnapshot snapshot : snapshots) {
            put(snapshot);
        }
    }

    /**
     * Records the snapshots not older than what the view holds for the same worker: seeds a view
     * from a store while another thread may already be putting newer snapshots.
     */
    public synchronized void putAllIfNewer(Collection<WorkerSnapshot> snapshots) {
        for (WorkerSnapshot snapshot : snapshots) {
            WorkerSnapshot current = get(snapshot.workerId());
            if (current == null || current.observedAtMs() <= snapshot.observedAtMs()) {
                put(snapshot);
            }
        }
    }

    /** Forgets a worker (its telemetry was deleted). */
    public synchronized void remove(String workerId) {
        int id = WorkerIds.find(workerId);
        if (id < 0 || id >= byId.length) {
            return;
        }
        WorkerSnapshot old = byId[id];
        if (old == null) {
            return;
        }
        byId[id] = null;
        members = without(members, id);
        leave(id, old);
    }

    public int size() {
        return members.length;
    }

    /** The workers as of now, in a view that later puts and removals do not change. O(fleet). */
    public FleetView copy() {
        return of(all());
    }

    /** As {@link #copy}, without one worker (one a request must not go back to). O(fleet). */
    public FleetView copyWithout(String workerId) {
        List<WorkerSnapshot> others = all();
        others.removeIf(w -> w.workerId().equals(workerId));
        return of(others);
    }

    /** Every worker's snapshot, in joining order. */
    public List<WorkerSnapshot> all() {
        int[] ids = members;
        WorkerSnapshot[] snapshots = byId;
        List<WorkerSnapshot> out = new ArrayList<>(ids.length);
        for (int id : ids) {
            WorkerSnapshot snapshot = snapshots[id];
            if (snapshot != null) {
                out.add(snapshot);
            }
        }
        return out;
    }

    public WorkerSnapshot get(String workerId) {
        return get(WorkerIds.find(workerId));
    }

    WorkerSnapshot get(int id) {
        WorkerSnapshot[] snapshots = byId;
        return id < 0 || id >= snapshots.length ? null : snapshots[id];
    }

    /** Workers serving {@code model}, in any region. */
    int serving(String model) {
        int n = 0;
        for (int[] ids : byModelRegion.getOrDefault(model, Map.of()).values()) {
            n += ids.length;
        }
        return n;
    }

    /** The workers serving the request's model in a region both the router and the request allow. */
    Eligible eligible(RouteRequest request, RoutingSettings settings) {
        Map<String, int[]> regions = byModelRegion.getOrDefault(request.model(), Map.of());
        List<int[]> parts = new ArrayList<>(regions.size());
        for (Map.Entry<String, int[]> e : regions.entrySet()) {
            if (settings.regionKnown(e.getKey()) && request.allowsRegion(e.getKey()) && e.getValue().length > 0) {
                parts.add(e.getValue());
            }
        }
        return new Eligible(parts.toArray(new int[0][]));
    }

    /** Worker ids drawn from a few (model, region) lists, addressable as one sequence. */
    static final class Eligible {
        private final int[][] parts;
        private final int size;

        Eligible(int[][] parts) {
            this.parts = parts;
            int n = 0;
            for (int[] part : parts) {
                n += part.length;
            }
            this.size = n;
        }

        int size() {
            return size;
        }

        int get(int index) {
            for (int[] part : parts) {
                if (index < part.length) {
                    return part[index];
                }
                index -= part.length;
            }
            throw new IndexOutOfBoundsException(index);
        }
    }

    private void join(int id, WorkerSnapshot snapshot) {
        Map<String, Map<String, int[]>> next = copy(byModelRegion);
        for (String model : snapshot.models()) {
            Map<String, int[]> regions = next.computeIfAbsent(model, m -> new HashMap<>());
            regions.put(snapshot.region(), append(regions.getOrDefault(snapshot.region(), new int[0]), id));
        }
        byModelRegion = next;
    }

    private void leave(int id, WorkerSnapshot snapshot) {
        Map<String, Map<String, int[]>> next = copy(byModelRegion);
        for (String model : snapshot.models()) {
            Map<String, int[]> regions = next.get(model);
            if (regions != null && regions.containsKey(snapshot.region())) {
                regions.put(snapshot.region(), without(regions.get(snapshot.region()), id));
            }
        }
        byModelRegion = next;
    }

    private static Map<String, Map<String, int[]>> copy(Map<String, Map<String, int[]>> source) {
        Map<String, Map<String, int[]>> out = new HashMap<>();
        source.forEach((model, regions) -> out.put(model, new HashMap<>(regions)));
        return out;
    }

    private void ensureCapacity(int id) {
        WorkerSnapshot[] current = byId;
        if (id < current.length) {
            return;
        }
        byId = Arrays.copyOf(current, Math.max(id + 1, current.length * 2));
    }

    private static int[] append(int[] ids, int id) {
        int[] out = Arrays.copyOf(ids, ids.length + 1);
        out[ids.length] = id;
        return out;
    }

    private static int[] without(int[] ids, int id) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == id) {
                int[] out = new int[ids.length - 1];
                System.arraycopy(ids, 0, out, 0, i);
                System.arraycopy(ids, i + 1, out, i, ids.length - i - 1);
                return out;
            }
        }
        return ids;
    }
}
