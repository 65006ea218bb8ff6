package io.kvroute.platform.kafka.transactions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A real broker, a real hanging transaction: a transactional batch the coordinator never heard of
 * (written with a raw produce request, the broker's partition verification off so that it is
 * accepted, as it was before KIP-890), which leaves the partition's last stable offset stuck exactly
 * as the skipped markers of a restarted broker did. The broker is this test's own: the shared one
 * keeps verification on.
 */
class HangingTransactionsIntegrationTest {
    private static final short PRODUCE_VERSION_WITHOUT_IMPLICIT_ADD = 11;
    private static final int TRANSACTION_TIMEOUT_MS = 30_000;

    private static KafkaClusterTestKit cluster;
    private static Admin admin;

    @BeforeAll
    static void startBroker() throws Exception {
        cluster = new KafkaClusterTestKit.Builder(
                new TestKitNodes.Builder().setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1).build())
                .setConfigProp("transaction.partition.verification.enable", "false")
                .setConfigProp("transaction.state.log.replication.factor", "1")
                .setConfigProp("transaction.state.log.min.isr", "1")
                .setConfigProp("transaction.state.log.num.partitions", "2")
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("offsets.topic.num.partitions", "2")
                .build();
        cluster.format();
        cluster.startup();
        cluster.waitForReadyBrokers();
        admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
        admin.createTopics(List.of(new NewTopic("hang", 2, (short) 1))).all().get();
    }

    @AfterAll
    static void stopBroker() throws Exception {
        admin.close();
        cluster.close();
    }

    @Test
    void shouldFindAndAbortAHangingTransactionButLeaveALiveOneAlone() throws Exception {
        TopicPartition stuck = new TopicPartition("hang", 0);
        TopicPartition live = new TopicPartition("hang", 1);
        try (KafkaProducer<String, String> owner = transactionalProducer("owner-of-the-hanging-one")) {
            owner.initTransactions();
        }
        TransactionDescription known = admin.describeTransactions(List.of("owner-of-the-hanging-one")).all().get()
                .get("owner-of-the-hanging-one");
        writeTransactionalBatchBehindTheCoordinatorsBack(stuck, "owner-of-the-hanging-one", known.producerId(), (short) known.producerEpoch());
        try (KafkaProducer<String, String> plain = new KafkaProducer<>(Map.of("bootstrap.servers", cluster.bootstrapServers()),
                new StringSerializer(), new StringSerializer())) {
            plain.send(new ProducerRecord<>("hang", 0, "after", "written after the hanging transaction")).get();
        }
        assertThat(lastStableOffset(stuck)).isLessThan(highWatermark(stuck));

        try (KafkaProducer<String, String> running = transactionalProducer("a-live-transaction")) {
            running.initTransactions();
            running.beginTransaction();
            running.send(new ProducerRecord<>("hang", 1, "k", "not committed yet")).get();
            long now = System.currentTimeMillis();
            HangingTransactions soon = sweeper(() -> now);
            HangingTransactions later = sweeper(() -> now + TRANSACTION_TIMEOUT_MS + 1_000);

            assertThat(soon.find()).as("not yet silent for its producer's transaction timeout").isEmpty();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(later.find()).extracting(h -> h.open().partition()).containsExactly(stuck));
            List<HangingTransaction> found = later.find();
            assertThat(found.get(0).coordinator()).hasValueSatisfying(c -> assertThat(c.transactionalId()).isEqualTo("owner-of-the-hanging-one"));
            assertThat(later.abort(found)).extracting(h -> h.open().partition()).containsExactly(stuck);

            assertThat(lastStableOffset(stuck)).isEqualTo(highWatermark(stuck));
            assertThat(later.find()).isEmpty();
            assertThat(later.abort(found)).as("no longer open: not aborted twice").isEmpty();
            running.commitTransaction();
        }
        // commitTransaction returns once the commit is decided; its markers follow
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(lastStableOffset(live)).isEqualTo(highWatermark(live)));
    }

    private static HangingTransactions sweeper(java.util.function.LongSupplier clock) {
        return new HangingTransactions(admin, new HangingTransactionRule(0, 60_000), clock);
    }

    private static KafkaProducer<String, String> transactionalProducer(String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, TRANSACTION_TIMEOUT_MS);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    /** A produce request of a transactional batch, sent on a plain socket: no client would write one unannounced. */
    private static void writeTransactionalBatchBehindTheCoordinatorsBack(TopicPartition tp, String transactionalId, long producerId, short epoch)
            throws Exception {
        ProduceRequestData data = new ProduceRequestData().setTransactionalId(transactionalId).setAcks((short) -1).setTimeoutMs(10_000);
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName(tp.topic());
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(tp.partition())
                .setRecords(MemoryRecords.withTransactionalRecords(Compression.NONE, producerId, epoch, 0,
                        new SimpleRecord(System.currentTimeMillis(), "k".getBytes(), "never committed, never aborted".getBytes()))));
        data.topicData().add(topic);
        ProduceRequest request = new ProduceRequest.Builder(PRODUCE_VERSION_WITHOUT_IMPLICIT_ADD, PRODUCE_VERSION_WITHOUT_IMPLICIT_ADD, data)
                .build(PRODUCE_VERSION_WITHOUT_IMPLICIT_ADD);
        RequestHeader header = new RequestHeader(ApiKeys.PRODUCE, PRODUCE_VERSION_WITHOUT_IMPLICIT_ADD, "hanging-maker", 1);
        String[] hostPort = cluster.bootstrapServers().split(",")[0].split(":");
        try (Socket socket = new Socket(hostPort[0], Integer.parseInt(hostPort[1]))) {
            ByteBuffer bytes = request.serializeWithHeader(header);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(bytes.remaining());
            out.write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] answer = new byte[in.readInt()];
            in.readFully(answer);
            ProduceResponse response = (ProduceResponse) AbstractResponse.parseResponse(ByteBuffer.wrap(answer), header);
            assertThat(response.errorCounts()).containsOnlyKeys(org.apache.kafka.common.protocol.Errors.NONE);
        }
    }

    private static long lastStableOffset(TopicPartition tp) throws Exception {
        return admin.listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .partitionResult(tp).get().offset();
    }

    private static long highWatermark(TopicPartition tp) throws Exception {
        return admin.listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
                .partitionResult(tp).get().offset();
    }
}
