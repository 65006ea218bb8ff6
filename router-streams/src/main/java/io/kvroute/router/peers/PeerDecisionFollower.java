package io.kvroute.router.peers;

import io.kvroute.router.routing.PeerPlacements;
import io.kvroute.router.topology.internal.Conversions;
import io.kvroute.schemas.topics.DecisionHeaders;
import io.kvroute.schemas.v1.RoutingDecision;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the decisions topic from its end (read-committed, no consumer group, no offsets kept:
 * only placements made from now on matter) on its own thread, and queues the other instances'
 * DISPATCHED decisions in {@link PeerPlacements}. A record it cannot decode is skipped and
 * counted; a failure to read starts it again from the end a second later. It never stops the router.
 */
public final class PeerDecisionFollower implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PeerDecisionFollower.class);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration RETRY = Duration.ofSeconds(1);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Deserializer<RoutingDecision> deserializer;
    private final String topic;
    private final String instance;
    private final byte[] instanceHeader;
    private final PeerPlacements inbox;
    private final CountDownLatch positioned = new CountDownLatch(1);
    private final AtomicLong undecodable = new AtomicLong();
    private final Thread thread;
    private volatile boolean closed;

    private PeerDecisionFollower(Map<String, Object> clientConfig, Deserializer<RoutingDecision> deserializer, String topic,
                                 String instance, PeerPlacements inbox) {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, "kvroute-router-peers-" + instance);
        this.consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.deserializer = deserializer;
        this.topic = topic;
        this.instance = instance;
        this.instanceHeader = DecisionHeaders.instanceValue(instance);
        this.inbox = inbox;
        this.thread = new Thread(this::run, "kvroute-router-peers");
        thread.setDaemon(true);
    }

    /**
     * Starts following the decisions of every router instance but {@code instance} on {@code topic}.
     *
     * @param clientConfig bootstrap servers and security settings of the cluster
     */
    public static PeerDecisionFollower start(Map<String, Object> clientConfig, Deserializer<RoutingDecision> deserializer,
                                             String topic, String instance, PeerPlacements inbox) {
        PeerDecisionFollower follower = new PeerDecisionFollower(clientConfig, deserializer, topic, instance, inbox);
        follower.thread.start();
        return follower;
    }

    /** Waits until it reads from the topic's end; false if the timeout passed first. */
    public boolean awaitPositioned(Duration timeout) throws InterruptedException {
        return positioned.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Decision records it could not decode and skipped. */
    public long undecodable() {
        return undecodable.get();
    }

    private void run() {
        try {
            while (!closed) {
                try {
                    followFromTheEnd();
                } catch (WakeupException e) {
                    if (!closed) {
                        LOG.warn("peer decision follower woken up while running; starting again from the end", e);
                    }
                } catch (RuntimeException e) {
                    if (Thread.currentThread().isInterrupted()) {
                        return;
                    }
                    // the broker unreachable, the topic's metadata missing: the router routes on, on its own placements
                    LOG.warn("peer decision follower failed; starting again from the end in {} ms: {}", RETRY.toMillis(), e.toString());
                    sleepUnlessClosed(RETRY);
                }
            }
        } finally {
            consumer.close(Duration.ofSeconds(1));
        }
    }

    /** Reads from the topic's end until closed; placements made while it was not reading are not followed. */
    private void followFromTheEnd() {
        List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
        positioned.countDown();
        while (!closed) {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
                follow(record);
            }
        }
    }

    private void sleepUnlessClosed(Duration duration) {
        long until = System.nanoTime() + duration.toNanos();
        while (!closed && System.nanoTime() < until) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void follow(ConsumerRecord<byte[], byte[]> record) {
        if (record.value() == null || DecisionHeaders.isFrom(record.headers(), instanceHeader)) {
            return; // its own decisions are not decoded: with one instance, that is every record
        }
        RoutingDecision decision;
        try {
            decision = deserializer.deserialize(record.topic(), record.value());
        } catch (RuntimeException e) {
            if (undecodable.incrementAndGet() == 1) {
                LOG.warn("skipping an undecodable decision record at {}-{}@{}: {}", record.topic(), record.partition(),
                        record.offset(), e.toString());
            }
            return;
        }
        Conversions.toPeerPlacement(decision, instance).ifPresent(inbox::offer);
    }

    @Override
    public void close() {
        closed = true;
        try {
            consumer.wakeup();
        } catch (IllegalStateException alreadyClosed) {
            // the thread ended on its own and closed the consumer
        }
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
