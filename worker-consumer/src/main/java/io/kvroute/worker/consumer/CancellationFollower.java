package io.kvroute.worker.consumer;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the cancellations topic on its own thread with its own consumer: every partition
 * assigned (no group), positioned at the end at start-up, read_committed. Each cancel's request id
 * (the record key) goes to {@code onCancel}; the value is not decoded, as the key says all.
 * Cancels written before the worker started are the router's to apply. Only this class's thread
 * touches its consumer, apart from {@link #close()}'s wakeup.
 */
public final class CancellationFollower implements Runnable, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CancellationFollower.class);
    static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

    private final org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer;
    private final String topic;
    private final Consumer<String> onCancel;
    private final CountDownLatch positioned = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean closing;

    public CancellationFollower(org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer, String topic,
                                Consumer<String> onCancel) {
        this.consumer = consumer;
        this.topic = topic;
        this.onCancel = onCancel;
    }

    /** Waits until the consumer is positioned at the end, so cancels written after this return are seen. */
    public boolean awaitPositioned(Duration timeout) throws InterruptedException {
        return positioned.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void run() {
        try {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position);
            positioned.countDown();
            while (!closing) {
                ConsumerRecords<String, byte[]> records = consumer.poll(POLL_TIMEOUT);
                for (ConsumerRecord<String, byte[]> record : records) {
                    if (record.key() == null || record.key().isBlank() || record.value() == null) {
                        continue;
                    }
                    LOG.info("cancel of request {} received", record.key());
                    onCancel.accept(record.key());
                }
            }
        } catch (WakeupException e) {
            if (!closing) {
                LOG.error("cancellation follower woken up unexpectedly; cancels are no longer applied", e);
            }
        } catch (RuntimeException e) {
            LOG.error("cancellation follower stopped; cancels are no longer applied: {}", e.toString(), e);
        } finally {
            positioned.countDown();
            try {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            } catch (RuntimeException e) {
                LOG.warn("closing the cancellations consumer failed: {}", e.toString());
            }
            stopped.countDown();
        }
    }

    @Override
    public void close() {
        closing = true;
        consumer.wakeup();
        try {
            if (!stopped.await(10, TimeUnit.SECONDS)) {
                LOG.warn("cancellation follower did not stop within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
