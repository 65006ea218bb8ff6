package io.kvroute.worker.it;

import static org.assertj.core.api.Assertions.assertThat;
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
import io.kvroute.schemas.v1.ResponseStatus;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Cancels written before a worker started, on the real broker and registry: those within the
 * worker's look-back are applied to the dispatch records it then reads (as when it takes over a
 * dead worker's partition), older ones are left to the router.
 */
class CancellationReadBackIntegrationTest {
    private static final String REGION = "us-east";
    private static final int PARTITIONS = 2;
    private static final long LOOKBACK_MS = 600_000;

    private Serdes serdes;
    private KvrouteTopics topics;
    private KafkaProducer<String, byte[]> producer;
    private ResponseLog<ResponseEvent> responses;
    private WorkerApp worker;

    @BeforeEach
    void setUp() {
        serdes = Serdes.forRegistryUrl(TestRegistry.url());
        topics = new KvrouteTopics("itr" + UUID.randomUUID().toString().substring(0, 8), PARTITIONS);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", TestKafka.bootstrapServers()))) {
            new TopicCreator(admin, (short) 1).ensure(topics.all(Map.of(REGION, 1)));
        }
        Properties p = new Properties();
        p.put("bootstrap.servers", TestKafka.bootstrapServers());
        producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
        responses = ResponseLog.responses(TestKafka.bootstrapServers(), topics.responses().name(), PARTITIONS, serdes);
    }

    @AfterEach
    void tearDown() {
        if (worker != null) {
            worker.close();
        }
        responses.close();
        producer.close();
    }

    @Test
    void shouldApplyCancelsWrittenWithinTheLookbackBeforeItStartedAndIgnoreOlderOnes() throws Exception {
        long now = System.currentTimeMillis();
        // in write order, as time stamps go: the look-back finds its start by time stamp
        cancel("ancient", now - LOOKBACK_MS - 3_600_000);
        cancel("recent", now - 60_000);
        send(dispatched("recent", 100));
        send(dispatched("kept", 5));

        worker = WorkerApp.start(Settings.of(settings()));

        assertThat(worker.isCancelled("recent")).as("read back before the worker polls its dispatch partitions").isTrue();
        assertThat(worker.isCancelled("ancient")).isFalse();
        await().atMost(Duration.ofSeconds(30)).until(() -> terminalsOf("recent").size() == 1 && terminalsOf("kept").size() == 1);
        assertThat(eventsOf("recent")).singleElement().satisfies(e -> {
            assertThat(e.getTerminal().getStatus()).isEqualTo(ResponseStatus.CANCELLED);
            assertThat(e.getTerminal().getUsage().getCompletionTokens()).as("never ran").isZero();
        });
        assertThat(terminalsOf("kept").get(0).getTerminal().getStatus()).isEqualTo(ResponseStatus.COMPLETED);
    }

    @Test
    void shouldReadOnlyNewCancelsWithALookbackOfZero() throws Exception {
        cancel("before", System.currentTimeMillis() - 1_000);
        Map<String, String> settings = settings();
        settings.put(WorkerConfig.CANCELLATION_LOOKBACK_MS, "0");

        worker = WorkerApp.start(Settings.of(settings));
        cancel("after", System.currentTimeMillis());

        await().atMost(Duration.ofSeconds(20)).until(() -> worker.isCancelled("after"));
        assertThat(worker.isCancelled("before")).isFalse();
    }

    private Map<String, String> settings() {
        Map<String, String> s = new HashMap<>();
        s.put(WorkerConfig.BOOTSTRAP_SERVERS, TestKafka.bootstrapServers());
        s.put(WorkerConfig.SCHEMA_REGISTRY_URL, TestRegistry.url());
        s.put(WorkerConfig.TOPIC_PREFIX, topics.prefix());
        s.put(WorkerConfig.WORKER_ID, "w-readback");
        s.put(WorkerConfig.REGION, REGION);
        s.put(WorkerConfig.SIM_SPEED, "1");
        s.put(WorkerConfig.CANCELLATION_LOOKBACK_MS, Long.toString(LOOKBACK_MS));
        return s;
    }

    private List<ResponseEvent> eventsOf(String requestId) {
        return responses.poll().stream().filter(e -> e.getRequestId().equals(requestId)).toList();
    }

    private List<ResponseEvent> terminalsOf(String requestId) {
        return ResponseLog.terminalsByRequest(responses.poll()).getOrDefault(requestId, List.of());
    }

    private void cancel(String requestId, long writtenAtMs) throws Exception {
        String topic = topics.cancellations().name();
        CancelRequest cancel = CancelRequest.newBuilder().setRequestId(requestId).setReason("test").setRequestedAtMs(writtenAtMs).build();
        producer.send(new ProducerRecord<>(topic, null, writtenAtMs, requestId,
                serdes.valueSerde(CancelRequest.class).serializer().serialize(topic, cancel))).get();
    }

    private void send(DispatchedRequest d) throws Exception {
        String topic = topics.dispatchTopic(REGION);
        byte[] value = serdes.valueSerde(DispatchedRequest.class).serializer().serialize(topic, d);
        producer.send(new ProducerRecord<>(topic, d.getPartition(), d.getRequest().getRequestId(), value)).get();
    }

    private static DispatchedRequest dispatched(String requestId, int maxTokens) {
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
                .setAttempt(1)
                .setRegion(REGION)
                .setPartition(0)
                .setWorkerId("a-worker-that-died")
                .setPolicy("test")
                .setDecidedAtMs(System.currentTimeMillis())
                .build();
    }
}
