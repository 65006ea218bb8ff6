package io.kvroute.worker.it;

import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.v1.ResponseEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads a topic from the beginning with a read_committed consumer, remembering everything. */
final class ResponseLog<T> implements AutoCloseable {
    private final KafkaConsumer<String, byte[]> consumer;
    private final Deserializer<T> deserializer;
    private final List<ConsumerRecord<String, byte[]>> raw = new ArrayList<>();
    private final List<T> values = new ArrayList<>();

    ResponseLog(String bootstrap, String topic, int partitions, Deserializer<T> deserializer) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("isolation.level", "read_committed");
        p.put("enable.auto.commit", "false");
        consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> tps = new ArrayList<>();
        for (int i = 0; i < partitions; i++) {
            tps.add(new TopicPartition(topic, i));
        }
        consumer.assign(tps);
        consumer.seekToBeginning(tps);
        this.deserializer = deserializer;
    }

    static ResponseLog<ResponseEvent> responses(String bootstrap, String topic, int partitions, Serdes serdes) {
        return new ResponseLog<>(bootstrap, topic, partitions, serdes.valueSerde(ResponseEvent.class).deserializer());
    }

    /** Polls once and returns everything read so far. */
    synchronized List<T> poll() {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100))) {
            raw.add(r);
            if (deserializer != null) {
                values.add(deserializer.deserialize(r.topic(), r.value()));
            }
        }
        return new ArrayList<>(values);
    }

    synchronized List<ConsumerRecord<String, byte[]>> pollRaw() {
        poll();
        return new ArrayList<>(raw);
    }

    static Map<String, List<ResponseEvent>> terminalsByRequest(List<ResponseEvent> events) {
        Map<String, List<ResponseEvent>> out = new HashMap<>();
        events.stream().filter(e -> e.getTerminal() != null)
                .forEach(e -> out.computeIfAbsent(e.getRequestId(), k -> new ArrayList<>()).add(e));
        return out;
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(2));
    }
}
