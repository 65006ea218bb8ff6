package io.kvroute.router.topology.internal;

import io.kvroute.schemas.v1.InferenceRequest;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads request records back by offset with a consumer of its own (read_committed, no group,
 * nothing committed), created on first use and shared by the router's tasks. A read waits at most
 * {@link #TIMEOUT}: it runs on the routing thread, inside its transaction.
 */
public final class KafkaRequestReader implements RequestReader, AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(3);
    private static final Duration POLL = Duration.ofMillis(100);

    private final Map<String, Object> config;
    private final Deserializer<InferenceRequest> deserializer;
    private KafkaConsumer<byte[], byte[]> consumer;

    /** @param clientConfig bootstrap servers and security settings of the cluster */
    public KafkaRequestReader(Map<String, Object> clientConfig, Deserializer<InferenceRequest> deserializer, String clientId) {
        this.config = new HashMap<>(clientConfig);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.remove(ConsumerConfig.GROUP_ID_CONFIG);
        this.deserializer = deserializer;
    }

    @Override
    public synchronized InferenceRequest read(RequestSource source, String requestId) {
        if (consumer == null) {
            consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        }
        TopicPartition partition = new TopicPartition(source.topic(), source.partition());
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        try {
            consumer.assign(List.of(partition));
            consumer.seek(partition, source.offset());
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL).records(partition)) {
                    if (record.offset() != source.offset()) {
                        throw new UnreadableRequestException("request " + requestId + " is not at " + source
                                + " (the first record from there is at offset " + record.offset() + ")");
                    }
                    InferenceRequest request = deserializer.deserialize(source.topic(), record.value());
                    if (request == null || !requestId.equals(request.getRequestId().toString())) {
                        throw new UnreadableRequestException("the record at " + source + " is not request " + requestId);
                    }
                    return request;
                }
            }
        } catch (KafkaException e) {
            throw new UnreadableRequestException("cannot read request " + requestId + " back from " + source + ": " + e, e);
        } finally {
            consumer.unsubscribe();
        }
        throw new UnreadableRequestException("request " + requestId + " could not be read back from " + source + " within "
                + TIMEOUT.toSeconds() + " s");
    }

    @Override
    public synchronized void close() {
        if (consumer != null) {
            consumer.close(Duration.ofSeconds(5));
            consumer = null;
        }
    }
}
