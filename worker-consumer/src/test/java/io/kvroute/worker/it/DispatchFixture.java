package io.kvroute.worker.it;

import static org.awaitility.Awaitility.await;

import io.kvroute.platform.config.Settings;
import io.kvroute.platform.kafka.TopicCreator;
import io.kvroute.platform.testing.TestKafka;
import io.kvroute.platform.testing.TestRegistry;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.CancelRequest;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.WorkerTelemetry;
import io.kvroute.worker.WorkerApp;
import io.kvroute.worker.config.WorkerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * What the worker integration tests share: fresh kvroute topics (one region) on the real broker,
 * a producer playing the router (dispatch records, cancels, re-placement markers), the responses
 * topic as a log, and a worker's settings.
 */
final class DispatchFixture implements AutoCloseable {
    static final String REGION = "us-east";

    private final Serdes serdes = Serdes.forRegistryUrl(TestRegistry.url());
    private final KvrouteTopics topics;
    private final KafkaProducer<String, byte[]> producer;
    private final ResponseLog<ResponseEvent> responses;
    private ResponseLog<WorkerTelemetry> telemetry;

    DispatchFixture(String prefix, int partitions, int slots) {
        topics = new KvrouteTopics(prefix + UUID.randomUUID().toString().substring(0, 8), partitions);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", TestKafka.bootstrapServers()))) {
            new TopicCreator(admin, (short) 1).ensure(topics.all(Map.of(REGION, slots)));
        }
        Properties p = new Properties();
        p.put("bootstrap.servers", TestKafka.bootstrapServers());
        producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
        responses = ResponseLog.responses(TestKafka.bootstrapServers(), topics.responses().name(), partitions, serdes);
    }

    /** Starts a worker with {@code settings} and waits until it owns one dispatch partition (the fixture's one slot). */
    static WorkerApp startOwningOne(Map<String, String> settings) {
        WorkerApp worker = WorkerApp.start(Settings.of(settings));
        await().atMost(Duration.ofSeconds(30)).until(() -> worker.ownedPartitions().size() == 1);
        return worker;
    }

    /** A simulated-GPU worker's settings on these topics; tests add their own. */
    Map<String, String> workerSettings(String workerId) {
        Map<String, String> s = new HashMap<>();
        s.put(WorkerConfig.BOOTSTRAP_SERVERS, TestKafka.bootstrapServers());
        s.put(WorkerConfig.SCHEMA_REGISTRY_URL, TestRegistry.url());
        s.put(WorkerConfig.TOPIC_PREFIX, topics.prefix());
        s.put(WorkerConfig.WORKER_ID, workerId);
        s.put(WorkerConfig.REGION, REGION);
        s.put(WorkerConfig.SIM_SPEED, "1");
        return s;
    }

    /** A user's cancel of {@code requestId}, time-stamped {@code writtenAtMs}. */
    void cancel(String requestId, long writtenAtMs) throws Exception {
        writeCancel(CancelRequest.newBuilder().setRequestId(requestId).setReason("test").setRequestedAtMs(writtenAtMs).build(),
                writtenAtMs);
    }

    /** The router's re-placement marker: attempts of {@code requestId} below {@code belowAttempt} are void. */
    void supersede(String requestId, int belowAttempt) throws Exception {
        long now = System.currentTimeMillis();
        writeCancel(CancelRequest.newBuilder().setRequestId(requestId).setReason("re-placed").setRequestedAtMs(now)
                .setSupersedesBelowAttempt(belowAttempt).build(), now);
    }

    private void writeCancel(CancelRequest cancel, long timestampMs) throws Exception {
        String topic = topics.cancellations().name();
        producer.send(new ProducerRecord<>(topic, null, timestampMs, cancel.getRequestId(),
                serdes.valueSerde(CancelRequest.class).serializer().serialize(topic, cancel))).get();
    }

    /** Writes a dispatch record to its partition, time-stamped {@code timestampMs}. */
    void send(DispatchedRequest d, long timestampMs) throws Exception {
        String topic = topics.dispatchTopic(REGION);
        byte[] value = serdes.valueSerde(DispatchedRequest.class).serializer().serialize(topic, d);
        producer.send(new ProducerRecord<>(topic, d.getPartition(), timestampMs, d.getRequest().getRequestId(), value)).get();
    }

    void send(DispatchedRequest d) throws Exception {
        send(d, System.currentTimeMillis());
    }

    /** A dispatch record for partition 0 of a small request with no prefix. */
    static DispatchedRequest dispatched(String requestId, int maxTokens, int attempt, String workerId) {
        InferenceRequest request = InferenceRequest.newBuilder()
                .setRequestId(requestId)
                .setTenant("t")
                .setModel("llama-3.1-8b")
                .setPrompt("a prompt that stays in the test")
                .setMaxTokens(maxTokens)
                .setPrefixBlockHashes(new ArrayList<>())
                .setPromptTokenEstimate(100)
                .setSubmittedAtMs(System.currentTimeMillis())
                .build();
        return DispatchedRequest.newBuilder()
                .setRequest(request)
                .setAttempt(attempt)
                .setRegion(REGION)
                .setPartition(0)
                .setWorkerId(workerId)
                .setPolicy("test")
                .setDecidedAtMs(System.currentTimeMillis())
                .build();
    }

    List<ResponseEvent> eventsOf(String requestId) {
        return responses.poll().stream().filter(e -> e.getRequestId().equals(requestId)).toList();
    }

    List<ResponseEvent> terminalsOf(String requestId) {
        return ResponseLog.terminalsByRequest(responses.poll()).getOrDefault(requestId, List.of());
    }

    /** The worker-telemetry topic as a log, opened on first use. */
    synchronized ResponseLog<WorkerTelemetry> telemetry() {
        if (telemetry == null) {
            telemetry = new ResponseLog<>(TestKafka.bootstrapServers(), topics.workerTelemetry().name(), 1,
                    serdes.valueSerde(WorkerTelemetry.class).deserializer());
        }
        return telemetry;
    }

    @Override
    public synchronized void close() {
        if (telemetry != null) {
            telemetry.close();
        }
        responses.close();
        producer.close();
    }
}
