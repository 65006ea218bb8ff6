package io.kvroute.router.errors;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link GlobalDeadLetters} on a plain idempotent producer (acks=all). A send that fails is logged,
 * never thrown: the global thread must not stop over a dead letter.
 */
public final class ProducerGlobalDeadLetters implements GlobalDeadLetters, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProducerGlobalDeadLetters.class);

    private final String dlqTopic;
    private final KafkaProducer<byte[], byte[]> producer;

    public ProducerGlobalDeadLetters(Map<String, Object> clientConfig, String dlqTopic, String clientId) {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        this.dlqTopic = dlqTopic;
        this.producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }

    @Override
    public void send(byte[] key, byte[] value, Headers headers) {
        try {
            producer.send(new ProducerRecord<>(dlqTopic, null, key, value, headers), (metadata, error) -> {
                if (error != null) {
                    LOG.warn("could not dead-letter a refused record to {}: {}", dlqTopic, error.toString());
                }
            });
        } catch (RuntimeException e) {
            LOG.warn("could not dead-letter a refused record to {}: {}", dlqTopic, e.toString());
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
