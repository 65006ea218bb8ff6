package io.kvroute.worker.engine;

import java.util.List;

/** Prefix blocks an engine's cache stored and evicted since the previous drain, netted per hash. */
public record KvChanges(List<Long> stored, List<Long> evicted) {
    public static final KvChanges NONE = new KvChanges(List.of(), List.of());

    public KvChanges {
        stored = List.copyOf(stored);
        evicted = List.copyOf(evicted);
    }

    public boolean isEmpty() {
        return stored.isEmpty() && evicted.isEmpty();
    }
}
