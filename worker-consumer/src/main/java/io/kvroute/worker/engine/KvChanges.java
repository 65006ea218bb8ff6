package io.kvroute.worker.engine;

import java.util.List;

/**
 * Prefix blocks an engine's cache stored and evicted since the previous drain, netted per hash,
 * and the held blocks whose memory tier changed: {@code offloaded} are now held only in host
 * memory (a stored hash listed there was stored straight into host memory, as far as a drain can
 * tell), {@code reloaded} are back in GPU memory. A block in host memory costs a PCIe copy to use,
 * not a recompute, so a router estimating time to first token needs both.
 */
public record KvChanges(List<Long> stored, List<Long> evicted, List<Long> offloaded, List<Long> reloaded) {
    public static final KvChanges NONE = new KvChanges(List.of(), List.of());

    public KvChanges {
        stored = List.copyOf(stored);
        evicted = List.copyOf(evicted);
        offloaded = List.copyOf(offloaded);
        reloaded = List.copyOf(reloaded);
    }

    /** Changes of an engine with one memory tier. */
    public KvChanges(List<Long> stored, List<Long> evicted) {
        this(stored, evicted, List.of(), List.of());
    }

    public boolean isEmpty() {
        return stored.isEmpty() && evicted.isEmpty() && offloaded.isEmpty() && reloaded.isEmpty();
    }
}
