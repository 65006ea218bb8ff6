package io.kvroute.worker.consumer;

import org.apache.kafka.common.record.TimestampType;

import org.apache.kafka.common.header.internals.RecordHeaders;

import java.util.Optional;

import io.kvroute.schemas.topics.CancelHeaders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.v1.CancelRequest;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CancellationFollowerTest {
    private static final String TOPIC = "kvroute.cancellations";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);

    private final CountingConsumer consumer = new CountingConsumer();
    private final Serde<CancelRequest> serde = new Serdes(Map.of("schema.registry.url", "mock://follower-" + UUID.randomUUID()))
            .valueSerde(CancelRequest.class);
    private final List<String> cancelled = new CopyOnWriteArrayList<>();
    private final List<String> superseded = new CopyOnWriteArrayList<>();
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private CancellationFollower follower;

    /** Counts the polls and the end-offset lookups the follower makes after start-up (the timed overload). */
    private static final class CountingConsumer extends MockConsumer<String, byte[]> {
        final AtomicInteger polls = new AtomicInteger();
        final AtomicInteger endOffsetLookups = new AtomicInteger();

        CountingConsumer() {
            super(AutoOffsetResetStrategy.EARLIEST.name());
        }

        @Override
        public synchronized ConsumerRecords<String, byte[]> poll(Duration timeout) {
            polls.incrementAndGet();
            return super.poll(timeout);
        }

        @Override
        public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions, Duration timeout) {
            endOffsetLookups.incrementAndGet();
            return super.endOffsets(partitions, timeout);
        }
    }

    private void start() throws InterruptedException {
        consumer.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, Node.noNode(), new Node[0], new Node[0])));
        consumer.updateBeginningOffsets(Map.of(P0, 0L));
        consumer.updateEndOffsets(Map.of(P0, 0L));
        follower = new CancellationFollower(consumer, TOPIC, (id, tenant) -> cancelled.add(id), (id, below) -> superseded.add(id + "<" + below),
                serde.deserializer(), Duration.ZERO, () -> clock.addAndGet(50));
        new Thread(follower, "follower-test").start();
        assertThat(follower.awaitPositioned(Duration.ofSeconds(10))).isTrue();
    }

    @AfterEach
    void stop() {
        if (follower != null) {
            follower.close();
        }
    }

    private void awaitMorePolls(int count) {
        int target = consumer.polls.get() + count;
        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.polls.get() >= target);
    }

    private ConsumerRecord<String, byte[]> cancel(long offset, String requestId) {
        CancelRequest value = CancelRequest.newBuilder().setRequestId(requestId).setRequestedAtMs(1).build();
        return new ConsumerRecord<>(TOPIC, 0, offset, requestId, serde.serializer().serialize(TOPIC, value));
    }

    private void append(long offset, CancelRequest value) {
        consumer.schedulePollTask(() -> {
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, offset, value.getRequestId(), serde.serializer().serialize(TOPIC, value)));
            consumer.updateEndOffsets(Map.of(P0, offset + 1));
        });
    }

    @Test
    void shouldSayItHasReadEverythingWrittenBeforeAMomentOnceItIsAtTheEnd() throws Exception {
        start();
        long asked = clock.addAndGet(1);

        assertThat(follower.awaitReadUpTo(asked, Duration.ofSeconds(5))).as("a check after the moment asked about").isTrue();
    }

    @Test
    void shouldNotSaySoWhileTheTopicHoldsRecordsItHasNotRead() throws Exception {
        start();
        consumer.updateEndOffsets(Map.of(P0, 5L));
        long asked = clock.addAndGet(1);

        assertThat(follower.awaitReadUpTo(asked, Duration.ofMillis(500))).isFalse();
        assertThat(consumer.endOffsetLookups.get()).as("asked again while waiting, at most once per check interval")
                .isGreaterThan(1)
                .isLessThanOrEqualTo((int) ((clock.get() - asked) / CancellationFollower.END_CHECK_INTERVAL_MS) + 1);
        awaitMorePolls(5); // a look already past its waiter check may still end
        int lookups = consumer.endOffsetLookups.get();
        awaitMorePolls(50);
        assertThat(consumer.endOffsetLookups.get()).as("the waiter gave up").isEqualTo(lookups);
    }

    @Test
    void shouldNotAskForEndOffsetsWhileNobodyWaits() throws Exception {
        start();

        awaitMorePolls(50);

        assertThat(consumer.endOffsetLookups.get()).isZero();
    }

    @Test
    void shouldReleaseAWaiterOnceItsPositionReachesTheEndAndThenStopAsking() throws Exception {
        start();
        consumer.updateEndOffsets(Map.of(P0, 2L));
        long asked = clock.addAndGet(1);
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> follower.awaitReadUpTo(asked, Duration.ofSeconds(10)));
        await().atMost(Duration.ofSeconds(5)).until(() -> consumer.endOffsetLookups.get() > 0);
        awaitMorePolls(10);
        assertThat(waiter).as("two records written and not read yet").isNotDone();

        consumer.schedulePollTask(() -> {
            consumer.addRecord(cancel(0, "a"));
            consumer.addRecord(cancel(1, "b"));
        });

        assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(cancelled).containsExactly("a", "b");
        // the follower may have passed its waiter check before the released waiter left: one more look, then none
        awaitMorePolls(5);
        int lookups = consumer.endOffsetLookups.get();
        awaitMorePolls(50);
        assertThat(consumer.endOffsetLookups.get()).as("nobody waits any more").isEqualTo(lookups);
    }

    @Test
    void shouldHandARePlacementMarkerToOnSupersedeAndAUserCancelToOnCancel() throws Exception {
        start();
        append(0, CancelRequest.newBuilder().setRequestId("moved").setRequestedAtMs(1).setSupersedesBelowAttempt(2).build());
        append(1, CancelRequest.newBuilder().setRequestId("stopped").setRequestedAtMs(1).build());

        assertThat(follower.awaitReadUpTo(clock.get() + 1_000, Duration.ofSeconds(5))).isTrue();
        assertThat(superseded).containsExactly("moved<2");
        assertThat(cancelled).containsExactly("stopped");
    }

    @Test
    void shouldNeverTakeAMarkedRecordForACancelButTakeAnUndecodableUnmarkedOne() throws Exception {
        start();
        byte[] undecodable = {0, 0, 0, 0, 99, 1, 2};
        consumer.schedulePollTask(() -> {
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 0, 0L, TimestampType.CREATE_TIME, 0, 0, "moved", undecodable,
                    CancelHeaders.markSupersede(new RecordHeaders()), Optional.empty()));
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 1, "stopped", undecodable));
            byte[] noAttempt = serde.serializer().serialize(TOPIC,
                    CancelRequest.newBuilder().setRequestId("odd").setRequestedAtMs(1).build());
            consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, 2, 0L, TimestampType.CREATE_TIME, 0, 0, "odd", noAttempt,
                    CancelHeaders.markSupersede(new RecordHeaders()), Optional.empty()));
            consumer.updateEndOffsets(Map.of(P0, 3L));
        });

        assertThat(follower.awaitReadUpTo(clock.get() + 1_000, Duration.ofSeconds(5))).isTrue();
        assertThat(superseded).isEmpty();
        assertThat(cancelled).as("a marked record never cancels").containsExactly("stopped");
    }
}
