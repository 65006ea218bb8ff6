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
 * The router's re-placement markers on the real broker and registry: a voided attempt is stopped
 * or skipped without a result, the newer attempt runs and writes the one result.
 */
class WorkerReplacementIntegrationTest {
    private static final String REGION = "us-east";
    private static final int SLOTS = 1;
    private static final int PARTITIONS = 2;
    private static final int LONG_MAX_TOKENS = 50_000;

    private String bootstrap;
    private Serdes serdes;
    private KvrouteTopics topics;
    private KafkaProducer<String, byte[]> producer;
    private ResponseLog<ResponseEvent> responses;
    private WorkerApp worker;

    @BeforeEach
    void setUp() {
        bootstrap = TestKafka.bootstrapServers();
        serdes = Serdes.forRegistryUrl(TestRegistry.url());
        topics = new KvrouteTopics("itr" + UUID.randomUUID().toString().substring(0, 8), PARTITIONS);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            new TopicCreator(admin, (short) 1).ensure(topics.all(Map.of(REGION, SLOTS)));
        }
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
        responses = ResponseLog.responses(bootstrap, topics.responses().name(), PARTITIONS, serdes);
        Map<String, String> s = new HashMap<>();
        s.put(WorkerConfig.BOOTSTRAP_SERVERS, bootstrap);
        s.put(WorkerConfig.SCHEMA_REGISTRY_URL, TestRegistry.url());
        s.put(WorkerConfig.TOPIC_PREFIX, topics.prefix());
        s.put(WorkerConfig.WORKER_ID, "w-replace");
        s.put(WorkerConfig.REGION, REGION);
        s.put(WorkerConfig.SIM_SPEED, "1");
        s.put(WorkerConfig.SIM_MAX_RUNNING, "1");
        worker = WorkerApp.start(Settings.of(s));
        await().atMost(Duration.ofSeconds(30)).until(() -> worker.ownedPartitions().size() == SLOTS);
    }

    @AfterEach
    void tearDown() {
        worker.close();
        responses.close();
        producer.close();
    }

    @Test
    void shouldStopARunningVoidedAttemptWithoutAResultAndRunTheNewerAttempt() throws Exception {
        send(dispatched("moved", LONG_MAX_TOKENS, 1), System.currentTimeMillis());
        await().atMost(Duration.ofSeconds(30)).until(() -> eventsOf("moved").size() >= 2);

        supersede("moved", 2);

        await().atMost(Duration.ofSeconds(10)).until(() -> worker.engine().snapshot().runningRequests() == 0);
        int streamed = eventsOf("moved").size();
        send(dispatched("moved", 5, 2), System.currentTimeMillis());

        await().atMost(Duration.ofSeconds(20)).until(() -> terminalsOf("moved").size() == 1);
        ResponseEvent terminal = terminalsOf("moved").get(0);
        assertThat(terminal.getTerminal().getStatus()).isEqualTo(ResponseStatus.COMPLETED);
        assertThat(terminal.getAttempt() >>> 16).as("the result is the newer attempt's").isEqualTo(2);
        assertThat(eventsOf("moved").subList(0, streamed)).allSatisfy(e -> {
            assertThat(e.getTerminal()).as("the voided run wrote no result").isNull();
            assertThat(e.getAttempt() >>> 16).isEqualTo(1);
        });
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> terminalsOf("moved").size() == 1);
    }

    @Test
    void shouldSkipAVoidedRecordThatWaitedInThePartitionAndGoOnWithTheNext() throws Exception {
        supersede("stale", 2);
        long longAgo = System.currentTimeMillis() - 60_000;
        send(dispatched("stale", 100, 1), longAgo);
        send(dispatched("after", 5, 1), System.currentTimeMillis());

        await().atMost(Duration.ofSeconds(20)).until(() -> terminalsOf("after").size() == 1);
        assertThat(terminalsOf("after").get(0).getTerminal().getStatus()).isEqualTo(ResponseStatus.COMPLETED);
        assertThat(eventsOf("stale")).as("a voided attempt is not run at all").isEmpty();
    }

    @Test
    void shouldStillRunAnAttemptAtOrAboveTheMarker() throws Exception {
        supersede("kept", 2);

        send(dispatched("kept", 5, 2), System.currentTimeMillis());

        await().atMost(Duration.ofSeconds(20)).until(() -> terminalsOf("kept").size() == 1);
        assertThat(terminalsOf("kept").get(0).getTerminal().getStatus()).isEqualTo(ResponseStatus.COMPLETED);
    }

    private List<ResponseEvent> eventsOf(String requestId) {
        return responses.poll().stream().filter(e -> e.getRequestId().equals(requestId)).toList();
    }

    private List<ResponseEvent> terminalsOf(String requestId) {
        return ResponseLog.terminalsByRequest(responses.poll()).getOrDefault(requestId, List.of());
    }

    private void supersede(String requestId, int belowAttempt) throws Exception {
        String topic = topics.cancellations().name();
        CancelRequest cancel = CancelRequest.newBuilder().setRequestId(requestId).setReason("re-placed")
                .setRequestedAtMs(System.currentTimeMillis()).setSupersedesBelowAttempt(belowAttempt).build();
        producer.send(new ProducerRecord<>(topic, requestId, serdes.valueSerde(CancelRequest.class).serializer().serialize(topic, cancel))).get();
    }

    private void send(DispatchedRequest d, long timestampMs) throws Exception {
        String topic = topics.dispatchTopic(REGION);
        byte[] value = serdes.valueSerde(DispatchedRequest.class).serializer().serialize(topic, d);
        producer.send(new ProducerRecord<>(topic, d.getPartition(), timestampMs, d.getRequest().getRequestId(), value)).get();
    }

    private static DispatchedRequest dispatched(String requestId, int maxTokens, int attempt) {
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
                .setWorkerId("unknown")
                .setPolicy("test")
                .setDecidedAtMs(System.currentTimeMillis())
                .build();
    }
}
