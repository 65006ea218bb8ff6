package io.kvroute.local.loadtest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What a phase of the run wrote to the cluster, per topic: the end offsets and log sizes of every
 * topic (internal ones included) before and after, and the records in between read back
 * {@code read_uncommitted}, so every data record is counted, aborted ones too. Offsets minus
 * data records are control records: transaction markers (commit or abort), one per partition a
 * transaction wrote to. Log bytes come from {@code Admin.describeLogDirs}, summed over the
 * partitions' replicas: batch headers and markers included, as on disk.
 */
final class TopicWrites {
    /** The cluster's state at one moment. */
    record Snapshot(Map<TopicPartition, Long> endOffsets, Map<TopicPartition, Long> logBytes) {
    }

    /** What one topic (or group of topics) gained between two snapshots. */
    record Written(String topic, int partitions, long offsets, long records, long tombstones, long payloadBytes, long logBytes) {
        long markers() {
            return offsets - records;
        }
    }

    private final Admin admin;
    private final String bootstrapServers;

    TopicWrites(Admin admin, String bootstrapServers) {
        this.admin = admin;
        this.bootstrapServers = bootstrapServers;
    }

    Snapshot snapshot() {
        try {
            Set<String> names = admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get(30, TimeUnit.SECONDS);
            Map<String, TopicDescription> topics = admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS);
            List<TopicPartition> partitions = new ArrayList<>();
            topics.values().forEach(t -> t.partitions().forEach(p -> partitions.add(new TopicPartition(t.name(), p.partition()))));
            Map<TopicPartition, Long> end = new HashMap<>();
            try (KafkaConsumer<byte[], byte[]> consumer = consumer("read_uncommitted")) {
                consumer.endOffsets(partitions, Duration.ofSeconds(30)).forEach(end::put);
            }
            List<Integer> brokers = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).stream().map(Node::id).toList();
            Map<TopicPartition, Long> bytes = new HashMap<>();
            Map<Integer, Map<String, LogDirDescription>> dirs = admin.describeLogDirs(brokers).allDescriptions().get(30, TimeUnit.SECONDS);
            dirs.values().forEach(byDir -> byDir.values().forEach(dir ->
                    dir.replicaInfos().forEach((tp, info) -> bytes.merge(tp, info.size(), Long::sum))));
            return new Snapshot(end, bytes);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the cluster's end offsets and log sizes: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading end offsets", e);
        }
    }

    /**
     * Per group of topics ({@code group} names a topic's group, or null to leave it out), what was
     * written between the snapshots; {@code onRecord} sees each data record of the kept topics.
     */
    Map<String, Written> between(Snapshot before, Snapshot after, Function<String, String> group,
                                 Consumer<ConsumerRecord<byte[], byte[]>> onRecord, Duration timeout) {
        Map<TopicPartition, long[]> ranges = new LinkedHashMap<>();
        after.endOffsets().forEach((tp, end) -> {
            long start = before.endOffsets().getOrDefault(tp, 0L);
            if (end > start && group.apply(tp.topic()) != null) {
                ranges.put(tp, new long[] {start, end});
            }
        });
        Map<String, long[]> totals = new TreeMap<>();
        Map<String, Set<TopicPartition>> partitionsOf = new HashMap<>();
        ranges.forEach((tp, range) -> {
            String name = group.apply(tp.topic());
            long[] t = totals.computeIfAbsent(name, n -> new long[5]);
            t[0] += range[1] - range[0];
            t[4] += after.logBytes().getOrDefault(tp, 0L) - before.logBytes().getOrDefault(tp, 0L);
            partitionsOf.computeIfAbsent(name, n -> new java.util.HashSet<>()).add(tp);
        });
        read(ranges, timeout, record -> {
            long[] t = totals.get(group.apply(record.topic()));
            t[1]++;
            if (record.value() == null) {
                t[2]++;
            }
            t[3] += (record.key() == null ? 0 : record.key().length) + (record.value() == null ? 0 : record.value().length);
            onRecord.accept(record);
        });
        Map<String, Written> written = new LinkedHashMap<>();
        totals.forEach((name, t) -> written.put(name, new Written(name, partitionsOf.get(name).size(), t[0], t[1], t[2], t[3], t[4])));
        return written;
    }

    private void read(Map<TopicPartition, long[]> ranges, Duration timeout, Consumer<ConsumerRecord<byte[], byte[]>> sink) {
        if (ranges.isEmpty()) {
            return;
        }
        try (KafkaConsumer<byte[], byte[]> consumer = consumer("read_uncommitted")) {
            Collection<TopicPartition> partitions = ranges.keySet();
            consumer.assign(partitions);
            ranges.forEach((tp, range) -> consumer.seek(tp, range[0]));
            Map<TopicPartition, long[]> open = new HashMap<>(ranges);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!open.isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("reading back what the run wrote took longer than " + timeout + "; "
                            + open.size() + " partitions not read to their end");
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    long[] range = ranges.get(new TopicPartition(record.topic(), record.partition()));
                    if (record.offset() < range[1]) {
                        sink.accept(record);
                    }
                }
                open.entrySet().removeIf(e -> consumer.position(e.getKey()) >= e.getValue()[1]);
                if (!open.isEmpty()) {
                    List<TopicPartition> done = ranges.keySet().stream().filter(tp -> !open.containsKey(tp)).toList();
                    consumer.pause(done);
                }
            }
        }
    }

    private KafkaConsumer<byte[], byte[]> consumer(String isolation) {
        return new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.CLIENT_ID_CONFIG, "kvroute-loadtest-writes",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
