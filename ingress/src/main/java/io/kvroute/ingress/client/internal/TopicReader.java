package io.kvroute.ingress.client.internal;

import io.kvroute.ingress.client.StartPosition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A group-less {@code read_committed} reader of one kvroute topic: it assigns partitions itself
 * (all of them, or the one a key hashes to), starts at the beginning or the end, and decodes values
 * one by one so an undecodable record is logged (by position, never content) and skipped instead
 * of stopping the read. Used on one thread; {@link #wakeup()} may be called from any.
 */
public final class TopicReader<T extends SpecificRecord> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TopicReader.class);
    private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(30);

    private final KafkaConsumer<String, byte[]> consumer;
    private final String topic;
    private final Deserializer<T> values;
    private List<TopicPartition> partitions = List.of();
    private long undecodable;

    public TopicReader(Map<String, Object> consumerConfig, String topic, Deserializer<T> values) {
        this.consumer = new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new ByteArrayDeserializer());
        this.topic = topic;
        this.values = values;
    }

    /** Assigns every partition of the topic and fixes the start position before returning. */
    public void openAll(StartPosition start) {
        assign(partitionInfos().stream().map(p -> new TopicPartition(topic, p.partition())).toList(), start);
    }

    /** Assigns only the partition that records keyed {@code key} go to (default partitioner). */
    public void openForKey(String key, StartPosition start) {
        int count = partitionInfos().size();
        int partition = Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % count;
        assign(List.of(new TopicPartition(topic, partition)), start);
    }

    /** Polls once and hands each decodable record to {@code sink} as (key, value); returns the count. */
    public int poll(Duration timeout, BiConsumer<ConsumerRecord<String, byte[]>, T> sink) {
        int handled = 0;
        for (ConsumerRecord<String, byte[]> record : consumer.poll(timeout)) {
            T value;
            try {
                value = values.deserialize(record.topic(), record.value());
            } catch (RuntimeException e) {
                undecodable++;
                LOG.warn("skipping undecodable record {}-{}@{}: {}", record.topic(), record.partition(), record.offset(), e.getClass().getSimpleName());
                continue;
            }
            if (value != null) {
                sink.accept(record, value);
                handled++;
            }
        }
        return handled;
    }

    /** The offsets a committed read ends at now, for "read to the end" snapshots. */
    public Map<TopicPartition, Long> endOffsets() {
        return consumer.endOffsets(partitions, METADATA_TIMEOUT);
    }

    /** True when every assigned partition's position has reached the given offsets. */
    public boolean reached(Map<TopicPartition, Long> offsets) {
        for (TopicPartition tp : partitions) {
            Long end = offsets.get(tp);
            if (end != null && consumer.position(tp, METADATA_TIMEOUT) < end) {
                return false;
            }
        }
        return true;
    }

    public long undecodable() {
        return undecodable;
    }

    public void wakeup() {
        consumer.wakeup();
    }

    @Override
    public void close() {
        consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }

    private List<PartitionInfo> partitionInfos() {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, METADATA_TIMEOUT);
        if (infos == null || infos.isEmpty()) {
            throw new IllegalStateException("topic " + topic + " does not exist: is the kvroute stack running with this topic prefix?");
        }
        return infos;
    }

    private void assign(Collection<TopicPartition> assigned, StartPosition start) {
        partitions = new ArrayList<>(assigned);
        consumer.assign(partitions);
        if (start == StartPosition.BEGINNING) {
            consumer.seekToBeginning(partitions);
        } else {
            consumer.seekToEnd(partitions);
        }
        // seek is lazy: resolving the positions now pins the start before anything is sent
        partitions.forEach(tp -> consumer.position(tp, METADATA_TIMEOUT));
    }
}
