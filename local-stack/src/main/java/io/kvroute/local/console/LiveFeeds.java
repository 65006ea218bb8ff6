package io.kvroute.local.console;

import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.RoutingDecision;
import io.kvroute.schemas.v1.WorkerTelemetry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One group-less {@code read_committed} consumer, on its own thread, that feeds the live pages:
 * the worker-telemetry topic from its beginning (compacted: one record per worker), the decisions
 * topic from the newest {@code decisionsKept} of each partition, and the dead-letter topic from its
 * beginning (counted; only the newest kept). It assigns partitions itself and commits nothing.
 */
final class LiveFeeds implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LiveFeeds.class);
    private static final Duration POLL = Duration.ofMillis(250);
    private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(30);

    private final KafkaConsumer<String, byte[]> consumer;
    private final KvrouteTopics topics;
    private final Deserializer<WorkerTelemetry> telemetry;
    private final Deserializer<RoutingDecision> decisionValues;
    private final FleetView fleet;
    private final DecisionLog decisions;
    private final DeadLetterLog deadLetters;
    private final int decisionsKept;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile boolean stopped;
    private volatile long undecodable;
    private volatile String failure;
    private Thread thread;

    LiveFeeds(ClientConfig config, Serdes serdes, FleetView fleet, DecisionLog decisions, DeadLetterLog deadLetters, int decisionsKept) {
        this.consumer = new KafkaConsumer<>(config.readerConfig("console"), new StringDeserializer(), new ByteArrayDeserializer());
        this.topics = config.topics();
        this.telemetry = serdes.valueSerde(WorkerTelemetry.class).deserializer();
        this.decisionValues = serdes.valueSerde(RoutingDecision.class).deserializer();
        this.fleet = fleet;
        this.decisions = decisions;
        this.deadLetters = deadLetters;
        this.decisionsKept = decisionsKept;
    }

    /** Assigns and positions the partitions (failing here if a topic is missing), then reads on a daemon thread. */
    LiveFeeds start() {
        try {
            List<TopicPartition> telemetryPartitions = partitions(topics.workerTelemetry().name());
            List<TopicPartition> decisionPartitions = partitions(topics.decisions().name());
            List<TopicPartition> deadLetterPartitions = partitions(topics.deadLetters().name());
            List<TopicPartition> all = new ArrayList<>(telemetryPartitions);
            all.addAll(decisionPartitions);
            all.addAll(deadLetterPartitions);
            consumer.assign(all);
            consumer.seekToBeginning(telemetryPartitions);
            consumer.seekToBeginning(deadLetterPartitions);
            Map<TopicPartition, Long> begin = consumer.beginningOffsets(decisionPartitions, METADATA_TIMEOUT);
            Map<TopicPartition, Long> end = consumer.endOffsets(decisionPartitions, METADATA_TIMEOUT);
            for (TopicPartition tp : decisionPartitions) {
                consumer.seek(tp, Math.max(begin.get(tp), end.get(tp) - decisionsKept));
            }
        } catch (RuntimeException e) {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            throw e;
        }
        thread = new Thread(this::run, "kvroute-console-feeds");
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    private List<TopicPartition> partitions(String topic) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, METADATA_TIMEOUT);
        if (infos == null || infos.isEmpty()) {
            throw new IllegalStateException("topic " + topic + " does not exist: is kvroute running on this cluster with topic prefix '"
                    + topics.prefix() + "' (--topic-prefix)? Create the topics with 'kvroute topics'.");
        }
        return infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
    }

    private void run() {
        String telemetryTopic = topics.workerTelemetry().name();
        String decisionsTopic = topics.decisions().name();
        try {
            while (!stopped) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
                    try {
                        if (record.topic().equals(telemetryTopic)) {
                            fleet.update(record.key(), record.value() == null ? null : telemetry.deserialize(record.topic(), record.value()));
                        } else if (record.topic().equals(decisionsTopic)) {
                            if (record.value() != null) {
                                decisions.add(decisionValues.deserialize(record.topic(), record.value()));
                            }
                        } else {
                            deadLetters.add(record);
                        }
                    } catch (RuntimeException e) {
                        undecodable++;
                        LOG.warn("skipping undecodable record {}-{}@{}: {}", record.topic(), record.partition(), record.offset(),
                                e.getClass().getSimpleName());
                    }
                }
            }
        } catch (WakeupException e) {
            if (!stopped) {
                failure = e.toString();
            }
        } catch (RuntimeException e) {
            failure = e.toString();
            LOG.error("console feeds stopped reading", e);
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            done.countDown();
        }
    }

    long undecodable() {
        return undecodable;
    }

    /** Why the feeds stopped reading, or null while they read. */
    String failure() {
        return failure;
    }

    @Override
    public void close() {
        stopped = true;
        if (thread == null) {
            return;
        }
        consumer.wakeup();
        try {
            done.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
