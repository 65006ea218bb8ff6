package io.kvroute.router.topology.internal;

import io.kvroute.router.errors.GlobalDeadLetters;
import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.router.routing.KvEvent;
import io.kvroute.router.routing.KvEventIndex;
import io.kvroute.schemas.registry.SchemaRegistryException;
import io.kvroute.schemas.v1.KvCacheEvent;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds the workers' KV events into the router's {@link KvEventIndex}, on the global-store
 * thread. The global store keeps each worker's last applied sequence (for inspection); the block
 * sets live in the in-memory index, rebuilt on start-up because a global store's processor also
 * runs while the store restores from the topic. A record that cannot be decoded, has no key, or
 * names another worker than its key is skipped with a warning and a metric, and dead-lettered with
 * the reason in headers ({@link GlobalDeadLetters}; not when the registry is unreachable, which is
 * not the record's fault): a failure here would stop the global thread and with it the router.
 * A tombstone forgets the worker.
 */
public final class KvEventUpdater implements Processor<String, byte[], Void, Void> {
    private static final Logger LOG = LoggerFactory.getLogger(KvEventUpdater.class);

    private final String topic;
    private final Deserializer<KvCacheEvent> deserializer;
    private final KvEventIndex index;
    private final RouterMetrics metrics;
    private final GlobalDeadLetters deadLetters;
    private ProcessorContext<Void, Void> context;
    private KeyValueStore<String, Long> sequences;

    public KvEventUpdater(String topic, Deserializer<KvCacheEvent> deserializer, KvEventIndex index, RouterMetrics metrics) {
        this(topic, deserializer, index, metrics, GlobalDeadLetters.none());
    }

    public KvEventUpdater(String topic, Deserializer<KvCacheEvent> deserializer, KvEventIndex index, RouterMetrics metrics,
                          GlobalDeadLetters deadLetters) {
        this.topic = topic;
        this.deserializer = deserializer;
        this.index = index;
        this.metrics = metrics;
        this.deadLetters = deadLetters;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.context = context;
        sequences = context.getStateStore(TopologyNames.KV_EVENTS_STORE);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        if (record.key() == null || record.key().isBlank()) {
            refuse(record, "no_key", new IllegalArgumentException("a KV event without a worker id key"));
            return;
        }
        if (record.value() == null) {
            index.removeWorker(record.key());
            sequences.delete(record.key());
            return;
        }
        KvCacheEvent event;
        try {
            event = deserializer.deserialize(topic, record.value());
        } catch (RuntimeException e) {
            if (SchemaRegistryException.isOutage(e)) {
                skip("registry_outage", "KV event of worker " + record.key() + " while the registry is unreachable: " + e.getMessage());
            } else {
                refuse(record, "undecodable", e);
            }
            return;
        }
        if (event == null || !record.key().equals(event.getWorkerId())) {
            refuse(record, "key_mismatch", new IllegalArgumentException("KV event keyed by worker " + record.key() + " naming worker "
                    + (event == null ? null : event.getWorkerId())));
            return;
        }
        KvEventIndex.Outcome outcome = index.apply(toKvEvent(event));
        sequences.put(record.key(), event.getSequence());
        metrics.kvEventApplied(outcome.name().toLowerCase(Locale.ROOT));
        if (outcome == KvEventIndex.Outcome.RESET_AFTER_GAP) {
            LOG.info("KV events of worker {} have a gap before sequence {}: its cached blocks are forgotten until reported again",
                    record.key(), event.getSequence());
        }
    }

    static KvEvent toKvEvent(KvCacheEvent event) {
        return new KvEvent(event.getWorkerId(), event.getSequence(), toArray(event.getStoredBlockHashes()),
                toArray(event.getEvictedBlockHashes()), toArray(event.getOffloadedBlockHashes()),
                toArray(event.getReloadedBlockHashes()), event.getAllCleared());
    }

    private static long[] toArray(List<Long> hashes) {
        if (hashes == null) {
            return new long[0];
        }
        long[] out = new long[hashes.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = hashes.get(i);
        }
        return out;
    }

    private void refuse(Record<String, byte[]> record, String kind, RuntimeException error) {
        metrics.kvEventSkipped(kind);
        LOG.warn("skipped and dead-lettered a KV event (key {}): {}", record.key(), error.getMessage());
        deadLetters.refuse(record, context.recordMetadata(), topic, error, context.currentSystemTimeMs());
    }

    private void skip(String kind, String message) {
        metrics.kvEventSkipped(kind);
        LOG.warn("skipped {}", message);
    }
}
