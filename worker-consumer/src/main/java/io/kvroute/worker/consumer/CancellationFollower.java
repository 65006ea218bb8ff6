package io.kvroute.worker.consumer;

import io.kvroute.schemas.topics.CancelHeaders;
import io.kvroute.schemas.v1.CancelRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the cancellations topic on its own thread with its own consumer: every partition
 * assigned (no group), read_committed. Each cancel's request id (the record key) and the tenant it is limited to
 * (the router sets it on tenants' cancels with topics per tenant; null otherwise) go to {@code onCancel}, unless its value is one of the router's re-placement markers, which goes to
 * {@code onSupersede}; a value that does not decode counts as a cancel; a tombstone is skipped.
 *
 * <p>At start-up it reads back the cancels written in the last {@code lookback} (the first offset
 * at or after now - lookback, per partition): a cancel written before this worker started, for a
 * request still waiting in a dispatch partition it takes over from a worker that died, must not
 * be missed. Older cancels are the router's to apply (it answers a request that arrives already
 * cancelled). The read-back is bounded by time, and what it feeds by its consumer's own bounds
 * (the worker keeps a fixed number of recent cancels). Only this class's thread touches its
 * consumer, apart from {@link #close()}'s wakeup.
 *
 * <p>The router's re-placement markers ({@code supersedesBelowAttempt} set) go to
 * {@code onSupersede} instead: they void old dispatch attempts, not the request. A value that
 * does not decode counts as a cancel, unless its header marks it as a re-placement marker
 * ({@link CancelHeaders}): that one is skipped. As a {@link CancellationView} it says when it has read
 * everything written before a given moment: it compares its position with the end offsets. It
 * asks the broker for them only while a caller of {@link #awaitReadUpTo} waits for a moment later
 * than the one already confirmed, and then at most every {@value #END_CHECK_INTERVAL_MS} ms.
 */
public final class CancellationFollower implements Runnable, AutoCloseable, CancellationView {
    private static final Logger LOG = LoggerFactory.getLogger(CancellationFollower.class);
    static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
    static final long END_CHECK_INTERVAL_MS = 100;
    static final Duration END_CHECK_TIMEOUT = Duration.ofSeconds(1);

    private final org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer;
    private final String topic;
    private final BiConsumer<String, String> onCancel;
    private final BiConsumer<String, Integer> onSupersede;
    private final Deserializer<CancelRequest> deserializer;
    private final Object readUpToMonitor = new Object();
    /** Guarded by {@code readUpToMonitor}: a moment before which everything has been read. */
    private long readUpToMs = Long.MIN_VALUE;
    /** Guarded by {@code readUpToMonitor}: callers in {@link #awaitReadUpTo} now; one that gave up no longer counts. */
    private int waiters;
    private long lastEndCheckMs;
    private final Duration lookback;
    private final LongSupplier clock;
    private final CountDownLatch positioned = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean closing;

    /** Cancels go to {@code onCancel}; re-placement markers (decoded with {@code deserializer}) go to {@code onSupersede}. */
    public CancellationFollower(org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer, String topic,
                                BiConsumer<String, String> onCancel, BiConsumer<String, Integer> onSupersede,
                                Deserializer<CancelRequest> deserializer, Duration lookback, LongSupplier clock) {
        if (lookback.isNegative()) {
            throw new IllegalArgumentException("lookback must not be negative, was " + lookback);
        }
        this.consumer = consumer;
        this.topic = topic;
        this.onCancel = onCancel;
        this.onSupersede = onSupersede;
        this.deserializer = deserializer;
        this.lookback = lookback;
        this.clock = clock;
    }

    /**
     * Waits until the cancels of the lookback window have been read (handed to {@code onCancel}) and
     * the consumer is at the end as of start-up, so cancels written after this return are seen too.
     */
    public boolean awaitPositioned(Duration timeout) throws InterruptedException {
        return positioned.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void run() {
        try {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            Map<TopicPartition, Long> startupEnds = consumer.endOffsets(partitions);
            seekToLookback(partitions);
            long readBack = 0;
            if (reached(startupEnds)) {
                positioned.countDown();
            }
            while (!closing) {
                ConsumerRecords<String, byte[]> records = consumer.poll(POLL_TIMEOUT);
                for (ConsumerRecord<String, byte[]> record : records) {
                    if (record.key() == null || record.key().isBlank() || record.value() == null) {
                        continue;
                    }
                    if (positioned.getCount() > 0) {
                        readBack++;
                        LOG.debug("cancel of request {} read back", record.key());
                    } else {
                        LOG.info("cancel of request {} received", record.key());
                    }
                    deliver(record);
                }
                noteReadUpTo(partitions);
                if (positioned.getCount() > 0 && reached(startupEnds)) {
                    LOG.info("read back {} cancels of the last {} ms", readBack, lookback.toMillis());
                    positioned.countDown();
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
            synchronized (readUpToMonitor) {
                readUpToMonitor.notifyAll();
            }
            try {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            } catch (RuntimeException e) {
                LOG.warn("closing the cancellations consumer failed: {}", e.toString());
            }
            stopped.countDown();
        }
    }

    private void deliver(ConsumerRecord<String, byte[]> record) {
        boolean marked = CancelHeaders.isSupersede(record.headers());
        Integer supersedesBelow = null;
        String tenant = null;
        try {
            CancelRequest cancel = deserializer.deserialize(topic, record.value());
            supersedesBelow = cancel.getSupersedesBelowAttempt();
            tenant = cancel.getTenant();
        } catch (RuntimeException e) {
            if (marked) {
                // never a user's cancel; older attempts of it may still run, and the response rule keeps one result
                LOG.warn("re-placement marker of request {} does not decode; older attempts are not voided here: {}",
                        record.key(), e.toString());
                return;
            }
            LOG.debug("cancel of request {} does not decode; taken as a cancel: {}", record.key(), e.toString());
        }
        if (supersedesBelow != null) {
            LOG.info("request {} was placed again; attempts below {} are void", record.key(), supersedesBelow);
            onSupersede.accept(record.key(), supersedesBelow);
        } else if (marked) {
            // the header decides, as in the router's cancel store: a marker never cancels
            LOG.warn("re-placement marker of request {} names no attempt; skipped", record.key());
        } else {
            onCancel.accept(record.key(), tenant);
        }
    }

    /**
     * After a poll, while someone waits for a moment not yet confirmed: if the position has reached
     * the end offsets fetched just now, everything before now is read.
     */
    private void noteReadUpTo(List<TopicPartition> partitions) {
        synchronized (readUpToMonitor) {
            if (waiters == 0) {
                return;
            }
        }
        long now = clock.getAsLong();
        if (now - lastEndCheckMs < END_CHECK_INTERVAL_MS) {
            return;
        }
        lastEndCheckMs = now;
        Map<TopicPartition, Long> ends;
        try {
            ends = consumer.endOffsets(partitions, END_CHECK_TIMEOUT);
        } catch (KafkaException e) {
            // the broker is away (a restart): not known to be up to date, try again after the next poll
            LOG.debug("cancellations end offsets unavailable: {}", e.toString());
            return;
        }
        if (reached(ends)) {
            synchronized (readUpToMonitor) {
                readUpToMs = now;
                readUpToMonitor.notifyAll();
            }
        }
    }

    @Override
    public boolean awaitReadUpTo(long epochMs, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (readUpToMonitor) {
            if (readUpToMs >= epochMs) {
                return true;
            }
            waiters++;
            try {
                while (readUpToMs < epochMs) {
                    long leftMs = (deadline - System.nanoTime()) / 1_000_000;
                    if (leftMs <= 0 || stopped.getCount() == 0) {
                        return false;
                    }
                    readUpToMonitor.wait(leftMs);
                }
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } finally {
                waiters--;
            }
        }
    }

    private void seekToLookback(List<TopicPartition> partitions) {
        if (lookback.isZero()) {
            consumer.seekToEnd(partitions);
            return;
        }
        long from = Math.max(0, clock.getAsLong() - lookback.toMillis());
        Map<TopicPartition, OffsetAndTimestamp> offsets = consumer.offsetsForTimes(
                partitions.stream().collect(Collectors.toMap(Function.identity(), p -> from)));
        for (TopicPartition partition : partitions) {
            OffsetAndTimestamp offset = offsets.get(partition);
            if (offset == null) {
                // nothing written since then
                consumer.seekToEnd(List.of(partition));
            } else {
                consumer.seek(partition, offset.offset());
            }
        }
    }

    private boolean reached(Map<TopicPartition, Long> ends) {
        return ends.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
    }

    /** False once the follower has stopped: from then on no cancel or re-placement marker reaches the worker. */
    public boolean isRunning() {
        return stopped.getCount() > 0;
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
