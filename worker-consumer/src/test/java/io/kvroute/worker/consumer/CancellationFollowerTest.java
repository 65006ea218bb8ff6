package io.kvroute.worker.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.v1.CancelRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
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

    private final MockConsumer<String, byte[]> consumer = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
    private final Serde<CancelRequest> serde = new Serdes(Map.of("schema.registry.url", "mock://follower-" + UUID.randomUUID()))
            .valueSerde(CancelRequest.class);
    private final List<String> cancelled = new CopyOnWriteArrayList<>();
    private final List<String> superseded = new CopyOnWriteArrayList<>();
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private CancellationFollower follower;

    private void start() throws InterruptedException {
        consumer.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, Node.noNode(), new Node[0], new Node[0])));
        consumer.updateBeginningOffsets(Map.of(P0, 0L));
        consumer.updateEndOffsets(Map.of(P0, 0L));
        follower = new CancellationFollower(consumer, TOPIC, cancelled::add, (id, below) -> superseded.add(id + "<" + below),
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
}
