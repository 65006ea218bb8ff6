package io.kvroute.router.topology.internal;

import io.kvroute.router.routing.WorkerSnapshot;
import io.kvroute.schemas.v1.WorkerTelemetry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Reads every worker's snapshot from the global telemetry store, decoding a worker's bytes only
 * when they changed since the previous read. One view per routing processor (not thread-safe).
 */
final class TelemetryView {
    private final ReadOnlyKeyValueStore<String, byte[]> store;
    private final String topic;
    private final Deserializer<WorkerTelemetry> deserializer;
    private Map<String, Cached> cache = new HashMap<>();

    TelemetryView(ReadOnlyKeyValueStore<String, byte[]> store, String topic, Deserializer<WorkerTelemetry> deserializer) {
        this.store = store;
        this.topic = topic;
        this.deserializer = deserializer;
    }

    List<WorkerSnapshot> snapshots() {
        Map<String, Cached> next = new HashMap<>();
        List<WorkerSnapshot> out = new ArrayList<>();
        try (KeyValueIterator<String, byte[]> it = store.all()) {
            while (it.hasNext()) {
                KeyValue<String, byte[]> entry = it.next();
                Cached cached = cache.get(entry.key);
                if (cached == null || !Arrays.equals(cached.raw(), entry.value)) {
                    cached = decode(entry.value);
                }
                if (cached != null) {
                    next.put(entry.key, cached);
                    out.add(cached.snapshot());
                }
            }
        }
        cache = next;
        return out;
    }

    private Cached decode(byte[] raw) {
        try {
            return new Cached(raw, Conversions.toSnapshot(deserializer.deserialize(topic, raw)));
        } catch (RuntimeException e) {
            // validated when stored; a failure now (registry outage) leaves this worker out of one decision
            return null;
        }
    }

    private record Cached(byte[] raw, WorkerSnapshot snapshot) {
    }
}
