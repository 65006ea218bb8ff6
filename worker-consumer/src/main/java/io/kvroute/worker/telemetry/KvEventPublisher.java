package io.kvroute.worker.telemetry;

import io.kvroute.schemas.v1.KvCacheEvent;
import io.kvroute.worker.engine.InferenceEngine;
import io.kvroute.worker.engine.KvChanges;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the prefix blocks the engine's cache stored and evicted since the previous event, and
 * the held blocks that moved between GPU and host memory, as
 * one {@link KvCacheEvent} keyed by worker id with a per-worker sequence (a gap tells a reader it
 * missed events). Nothing is sent when nothing changed. Called from one thread.
 */
public final class KvEventPublisher {
    private static final Logger LOG = LoggerFactory.getLogger(KvEventPublisher.class);

    private final String workerId;
    private final String region;
    private final String topic;
    private final InferenceEngine engine;
    private final Producer<String, byte[]> producer;
    private final Serializer<KvCacheEvent> serializer;
    private final LongSupplier clock;
    private long sequence;

    public KvEventPublisher(String workerId, String region, String topic, InferenceEngine engine,
                            Producer<String, byte[]> producer, Serializer<KvCacheEvent> serializer, LongSupplier clock) {
        this.workerId = workerId;
        this.region = region;
        this.topic = topic;
        this.engine = engine;
        this.producer = producer;
        this.serializer = serializer;
        this.clock = clock;
    }

    /** Sends the changes since the last call, if any; returns whether an event was sent. */
    public boolean publishChanges() {
        KvChanges changes = engine.drainKvChanges();
        if (changes.isEmpty()) {
            return false;
        }
        KvCacheEvent event = KvCacheEvent.newBuilder()
                .setWorkerId(workerId)
                .setRegion(region)
                .setSequence(sequence++)
                .setStoredBlockHashes(changes.stored())
                .setEvictedBlockHashes(changes.evicted())
                .setOffloadedBlockHashes(changes.offloaded())
                .setReloadedBlockHashes(changes.reloaded())
                .setAllCleared(false)
                .setObservedAtMs(clock.getAsLong())
                .build();
        producer.send(new ProducerRecord<>(topic, workerId, serializer.serialize(topic, event)), (metadata, error) -> {
            if (error != null) {
                LOG.warn("KV event {} of worker {} not delivered: {}", event.getSequence(), workerId, error.toString());
            }
        });
        return true;
    }

    /** Tells readers to forget everything this worker announced (sent at start-up: the cache is empty). */
    public void publishCleared() {
        KvCacheEvent event = KvCacheEvent.newBuilder()
                .setWorkerId(workerId)
                .setRegion(region)
                .setSequence(sequence++)
                .setAllCleared(true)
                .setObservedAtMs(clock.getAsLong())
                .build();
        producer.send(new ProducerRecord<>(topic, workerId, serializer.serialize(topic, event)));
    }
}
