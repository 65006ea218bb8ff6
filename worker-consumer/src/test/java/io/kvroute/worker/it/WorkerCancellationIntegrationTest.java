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
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Cancels reaching a worker on the real broker and registry: mid-run, while queued, and before the dispatch record. */
class WorkerCancellationIntegrationTest {
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
        topics = new KvrouteTopics("itc" + UUID.randomUUID().toString().substring(0, 8), PARTITIONS);
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
        s.put(WorkerConfig.WORKER_ID, "w-cancel");
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
    void shouldAbortARunningRequestAndAQueuedOneWithOneCancelledTerminalEach() throws Exception {
        send(dispatched("long", LONG_MAX_TOKENS));
        send(dispatched("queued", LONG_MAX_TOKENS));
        await().atMost(Duration.ofSeconds(30)).until(() -> eventsOf("long").size() >= 2);

        cancel("queued");
        cancel("long");

        await().atMost(Duration.ofSeconds(20)).until(() -> terminalsOf("long").size() == 1 && terminalsOf("queued").size() == 1);
        ResponseEvent terminal = terminalsOf("long").get(0);
        assertThat(terminal.getTerminal().getStatus()).isEqualTo(ResponseStatus.CANCELLED);
        assertThat(terminal.getTerminal().getFinishReason()).isEqualTo("cancelled");
        assertThat(terminal.getTerminal().getWorkerId()).isEqualTo("w-cancel");
        int tokens = terminal.getTerminal().getUsage().getCompletionTokens();
        assertThat(tokens).as("usage counts the tokens streamed before the cancel").isPositive().isLessThan(LONG_MAX_TOKENS);
        List<Integer> chunkSequences = eventsOf("long").stream().filter(e -> e.getTerminal() == null)
                .map(ResponseEvent::getSequence).distinct().sorted().toList();
        assertThat(chunkSequences).as("every chunk is written before the terminal, numbered after them")
                .isEqualTo(IntStream.range(0, terminal.getSequence()).boxed().toList());
        Map<Integer, String> chunks = new TreeMap<>();
        eventsOf("long").stream().filter(e -> e.getTerminal() == null).forEach(e -> chunks.put(e.getSequence(), e.getTextDelta()));
        String text = String.join("", chunks.values());
        assertThat(text.split(" ", -1)).as("the chunks hold exactly the tokens counted").hasSize(tokens + 1);

        ResponseEvent queued = terminalsOf("queued").get(0);
        assertThat(queued.getTerminal().getStatus()).isEqualTo(ResponseStatus.CANCELLED);
        assertThat(queued.getSequence()).isZero();
        assertThat(eventsOf("queued")).as("a request cancelled while queued streams nothing").hasSize(1);

        int seen = eventsOf("long").size();
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                .until(() -> eventsOf("long").size() == seen && eventsOf("queued").size() == 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> worker.engine().snapshot().runningRequests() == 0
                && worker.engine().snapshot().waitingRequests() == 0);
    }

    @Test
    void shouldAnswerCancelledWithoutRunningWhenTheCancelCameBeforeTheDispatchRecord() throws Exception {
        cancel("never");
        await().atMost(Duration.ofSeconds(20)).until(() -> worker.isCancelled("never"));

        send(dispatched("never", 100));
        send(dispatched("after", 5));

        await().atMost(Duration.ofSeconds(20)).until(() -> terminalsOf("never").size() == 1 && terminalsOf("after").size() == 1);
        assertThat(eventsOf("never")).singleElement().satisfies(e -> {
            assertThat(e.getSequence()).isZero();
            assertThat(e.getTerminal().getStatus()).isEqualTo(ResponseStatus.CANCELLED);
            assertThat(e.getTerminal().getFinishReason()).isEqualTo("cancelled");
            assertThat(e.getTerminal().getUsage().getCompletionTokens()).isZero();
        });
        assertThat(terminalsOf("after").get(0).getTerminal().getStatus()).isEqualTo(ResponseStatus.COMPLETED);
    }

    private List<ResponseEvent> eventsOf(String requestId) {
        return responses.poll().stream().filter(e -> e.getRequestId().equals(requestId)).toList();
    }

    private List<ResponseEvent> terminalsOf(String requestId) {
        return ResponseLog.terminalsByRequest(responses.poll()).getOrDefault(requestId, List.of());
    }

    private void cancel(String requestId) throws Exception {
        String topic = topics.cancellations().name();
        CancelRequest cancel = CancelRequest.newBuilder().setRequestId(requestId).setReason("test").setRequestedAtMs(System.currentTimeMillis()).build();
        producer.send(new ProducerRecord<>(topic, requestId, serdes.valueSerde(CancelRequest.class).serializer().serialize(topic, cancel))).get();
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
                .setWorkerId("unknown")
                .setPolicy("test")
                .setDecidedAtMs(System.currentTimeMillis())
                .build();
    }
}
