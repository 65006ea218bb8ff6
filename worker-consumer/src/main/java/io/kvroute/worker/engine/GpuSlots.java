package io.kvroute.worker.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The GPU slots one worker process serves: an engine per slot, each a worker of its own to the router (its own id,
 * telemetry and KV events), all fed from the process's dispatch partitions. A dispatch record names the slot the
 * router chose ({@code DispatchedRequest.workerId}), so slots share a partition and each slot's requests still run
 * in partition order, on the GPU they were placed on. Sharing is what keeps the router's transactions small: with
 * one partition per process instead of per GPU, a fleet of N GPUs in K-GPU processes touches N/K partitions.
 *
 * <p>A record naming a slot this process does not have (the partition came from another process, whose slots it
 * named) runs on the slot with the fewest requests waiting among those whose server can be reached. Thread-safe as
 * the engines are.
 */
public final class GpuSlots implements AutoCloseable {

    /** One GPU: the id the router knows it by, and its engine. */
    public record Slot(String workerId, InferenceEngine engine) {
    }

    private final List<Slot> slots;
    private final Map<String, Slot> byWorkerId = new LinkedHashMap<>();

    public GpuSlots(List<Slot> slots) {
        if (slots.isEmpty()) {
            throw new IllegalArgumentException("a worker serves at least one GPU slot");
        }
        this.slots = List.copyOf(slots);
        for (Slot slot : this.slots) {
            if (byWorkerId.put(slot.workerId(), slot) != null) {
                throw new IllegalArgumentException("two GPU slots named " + slot.workerId());
            }
        }
    }

    /** A process serving one GPU, known by the process's own worker id. */
    public static GpuSlots single(String workerId, InferenceEngine engine) {
        return new GpuSlots(List.of(new Slot(workerId, engine)));
    }

    /**
     * The worker id of GPU {@code gpu} (0-based) of a process with id {@code workerId} serving {@code gpus}: the
     * process's own id when it serves one, else {@code <workerId>-g<gpu>}.
     */
    public static String slotId(String workerId, int gpu, int gpus) {
        return gpus == 1 ? workerId : workerId + "-g" + gpu;
    }

    /** Whether {@code slotId} is process {@code workerId} itself or one of its GPU slots ({@code <workerId>-g<i>}). */
    public static boolean isSlotOf(String slotId, String workerId) {
        return slotId.equals(workerId) || slotId.startsWith(workerId + "-g") && slotId.substring(workerId.length() + 2).matches("\\d+");
    }

    /** The slots' ids in order, for {@code gpus} GPUs of process {@code workerId}. */
    public static List<String> slotIds(String workerId, int gpus) {
        List<String> ids = new ArrayList<>(gpus);
        for (int gpu = 0; gpu < gpus; gpu++) {
            ids.add(slotId(workerId, gpu, gpus));
        }
        return ids;
    }

    public List<Slot> slots() {
        return slots;
    }

    public int size() {
        return slots.size();
    }

    /**
     * The slot a record placed on {@code placedOn} runs on: that slot, or when it is not here the least busy reachable
     * one (a slot whose server is down fails fast, so it would look the least busy).
     */
    public Slot slotFor(String placedOn) {
        Slot named = placedOn == null ? null : byWorkerId.get(placedOn);
        if (named != null) {
            return named;
        }
        Slot best = null;
        int bestWaiting = Integer.MAX_VALUE;
        for (Slot slot : slots) {
            int waiting = slot.engine().waitingRequests();
            if (slot.engine().unreachable() == null && waiting < bestWaiting) {
                best = slot;
                bestWaiting = waiting;
            }
        }
        return best != null ? best : slots.get(0);
    }

    /** Stops every attempt of {@code requestId} on whichever slot runs it. */
    public void cancel(String requestId) {
        for (Slot slot : slots) {
            slot.engine().cancel(requestId);
        }
    }

    /** Requests accepted but not running yet on the busiest slot: the per-slot bound {@code worker.max.waiting} is against it. */
    public int mostWaiting() {
        int most = 0;
        for (Slot slot : slots) {
            most = Math.max(most, slot.engine().waitingRequests());
        }
        return most;
    }

    /**
     * Why no slot's server can be reached now, or null while one can: a process whose other slots still serve is
     * ready (each slot's telemetry says which are degraded).
     */
    public String unreachable() {
        List<String> reasons = new ArrayList<>();
        for (Slot slot : slots) {
            String why = slot.engine().unreachable();
            if (why == null) {
                return null;
            }
            reasons.add(slots.size() == 1 ? why : slot.workerId() + ": " + why);
        }
        return String.join("; ", reasons);
    }

    @Override
    public void close() {
        RuntimeException first = null;
        for (Slot slot : slots) {
            try {
                slot.engine().close();
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
