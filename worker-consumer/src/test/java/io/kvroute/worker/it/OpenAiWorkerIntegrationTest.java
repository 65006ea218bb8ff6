package io.kvroute.worker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvroute.platform.config.Settings;
import io.kvroute.platform.kafka.TopicCreator;
import io.kvroute.platform.testing.TestKafka;
import io.kvroute.platform.testing.TestRegistry;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.ChatMessage;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.WorkerStatus;
import io.kvroute.schemas.v1.WorkerTelemetry;
import io.kvroute.worker.WorkerApp;
import io.kvroute.worker.config.WorkerConfig;
import io.kvroute.worker.engine.openai.ReplayServer;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A worker with {@code worker.engine=openai} on the real broker and registry, driving a local
 * server that replays recorded vLLM streams and /metrics pages.
 */
class OpenAiWorkerIntegrationTest {
    private static final String REGION = "eu-west";
    private static final int SLOTS = 2;
    private static final Duration WAIT = Duration.ofSeconds(30);

    private String bootstrap;
    private Serdes serdes;
    private KvrouteTopics topics;
    private KafkaProducer<String, byte[]> producer;
    private ReplayServer server;
    private final java.util.concurrent.atomic.AtomicInteger flakyCalls = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger brokenCalls = new java.util.concurrent.atomic.AtomicInteger();
    private WorkerApp worker;
    private ResponseLog<ResponseEvent> responses;
    private ResponseLog<WorkerTelemetry> telemetry;

    @BeforeEach
    void setUp() {
        bootstrap = TestKafka.bootstrapServers();
        serdes = Serdes.forRegistryUrl(TestRegistry.url());
        topics = new KvrouteTopics("oa" + UUID.randomUUID().toString().substring(0, 8), 2);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            new TopicCreator(admin, (short) 1).ensure(topics.all(Map.of(REGION, SLOTS)));
        }
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
        server = ReplayServer.start((path, body) -> {
            if (path.equals("/metrics")) {
                return ReplayServer.page("vllm-0.11-metrics.txt");
            }
            if (body.contains("trigger-400")) {
                return ReplayServer.error(400, "vllm-0.9-error-400.json", Map.of("Content-Type", "application/json"));
            }
            if (body.contains("trigger-flaky") && flakyCalls.getAndIncrement() == 0) {
                return ReplayServer.stream("vllm-0.9-completions-stream-cut.txt");
            }
            if (body.contains("trigger-broken")) {
                brokenCalls.incrementAndGet();
                return ReplayServer.error(500, "error-500.txt", Map.of("Content-Type", "text/plain"));
            }
            if (body.contains("trigger-429")) {
                return ReplayServer.error(429, "error-429.json", Map.of("Retry-After", "30", "Content-Type", "application/json"));
            }
            return ReplayServer.stream(body.contains("\"messages\"") ? "vllm-0.9-chat-stream.txt" : "vllm-0.9-completions-stream.txt");
        });
        responses = ResponseLog.responses(bootstrap, topics.responses().name(), 2, serdes);
        telemetry = new ResponseLog<>(bootstrap, topics.workerTelemetry().name(), 1,
                serdes.valueSerde(WorkerTelemetry.class).deserializer());
    }

    @AfterEach
    void tearDown() {
        if (worker != null) {
            worker.close();
        }
        server.close();
        responses.close();
        telemetry.close();
        producer.close();
    }

    private void startWorker() {
        Map<String, String> s = new HashMap<>();
        s.put(WorkerConfig.BOOTSTRAP_SERVERS, bootstrap);
        s.put(WorkerConfig.SCHEMA_REGISTRY_URL, TestRegistry.url());
        s.put(WorkerConfig.TOPIC_PREFIX, topics.prefix());
        s.put(WorkerConfig.WORKER_ID, "gpu-openai-1");
        s.put(WorkerConfig.REGION, REGION);
        s.put(WorkerConfig.TELEMETRY_INTERVAL_MS, "100");
        s.put(WorkerConfig.CHUNK_TOKENS, "2");
        s.put(WorkerConfig.ENGINE, WorkerConfig.ENGINE_OPENAI);
        s.put(WorkerConfig.OPENAI_ENDPOINT, server.uri() + "/v1");
        s.put(WorkerConfig.OPENAI_MODEL, "meta-llama/Llama-3.1-8B-Instruct");
        s.put(WorkerConfig.OPENAI_METRICS_INTERVAL_MS, "200");
        s.put(WorkerConfig.RETRY_BACKOFF_MS, "100");
        worker = WorkerApp.start(Settings.of(s));
    }

    private void send(String requestId, int partition, String prompt, List<ChatMessage> messages) throws Exception {
        InferenceRequest request = InferenceRequest.newBuilder()
                .setRequestId(requestId)
                .setTenant("t")
                .setModel("llama-3.1-8b")
                .setPrompt(prompt)
                .setMessages(messages)
                .setMaxTokens(64)
                .setPromptTokenEstimate(300)
                .setSubmittedAtMs(System.currentTimeMillis())
                .build();
        DispatchedRequest d = DispatchedRequest.newBuilder()
                .setRequest(request)
                .setAttempt(1)
                .setRegion(REGION)
                .setPartition(partition)
                .setWorkerId("gpu-openai-1")
                .setPolicy("test")
                .setDecidedAtMs(System.currentTimeMillis())
                .build();
        String topic = topics.dispatchTopic(REGION);
        producer.send(new ProducerRecord<>(topic, partition, requestId,
                serdes.valueSerde(DispatchedRequest.class).serializer().serialize(topic, d))).get();
    }

    private List<ResponseEvent> eventsOf(String requestId) {
        return responses.poll().stream().filter(e -> e.getRequestId().equals(requestId)).toList();
    }

    private ResponseEvent terminalOf(String requestId) {
        await().atMost(WAIT).until(() -> eventsOf(requestId).stream().anyMatch(e -> e.getTerminal() != null));
        List<ResponseEvent> terminals = eventsOf(requestId).stream().filter(e -> e.getTerminal() != null).toList();
        assertThat(terminals).hasSize(1);
        return terminals.get(0);
    }

    private String textOf(String requestId) {
        List<ResponseEvent> chunks = eventsOf(requestId).stream().filter(e -> e.getTerminal() == null)
                .sorted(Comparator.comparingInt(ResponseEvent::getSequence)).toList();
        assertThat(chunks).extracting(ResponseEvent::getSequence)
                .containsExactlyElementsOf(java.util.stream.IntStream.range(0, chunks.size()).boxed().toList());
        return chunks.stream().map(e -> e.getTextDelta().toString()).collect(Collectors.joining());
    }

    @Test
    void shouldServeStreamsRejectBadRequestsAndReportRateLimits() throws Exception {
        startWorker();
        send("ok-1", 0, "The capital of France is", null);
        send("chat-1", 1, null, List.of(new ChatMessage("user", "Hi there")));
        send("bad-1", 0, "trigger-400 with a prompt far too long", null);

        ResponseEvent ok = terminalOf("ok-1");
        assertThat(ok.getTerminal().getStatus()).isEqualTo(ResponseStatus.COMPLETED);
        assertThat(ok.getTerminal().getFinishReason()).isEqualTo("stop");
        assertThat(ok.getTerminal().getUsage().getPromptTokens()).isEqualTo(1312);
        assertThat(ok.getTerminal().getUsage().getCompletionTokens()).isEqualTo(7);
        assertThat(ok.getTerminal().getUsage().getCachedTokens()).isEqualTo(1280);
        assertThat(ok.getTerminal().getTtftMs()).isNotNull();
        assertThat(ok.getTerminal().getWorkerId()).isEqualTo("gpu-openai-1");
        assertThat(textOf("ok-1")).isEqualTo(" Paris is the capital of France.");
        assertThat(ok.getSequence()).isEqualTo(4);

        ResponseEvent chat = terminalOf("chat-1");
        assertThat(chat.getTerminal().getStatus()).isEqualTo(ResponseStatus.COMPLETED);
        assertThat(chat.getTerminal().getUsage().getCachedTokens()).isEqualTo(32);
        assertThat(textOf("chat-1")).isEqualTo("Hello! How can I help you today?");

        ResponseEvent bad = terminalOf("bad-1");
        assertThat(bad.getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
        assertThat(bad.getTerminal().getError().toString()).contains("maximum context length is 8192 tokens");
        assertThat(eventsOf("bad-1")).hasSize(1);

        await().atMost(WAIT).until(() -> telemetry.poll().stream()
                .anyMatch(t -> t.getKvBlocksTotal() == 27_153 && t.getStatus() == WorkerStatus.HEALTHY));

        long before = System.currentTimeMillis();
        send("limited-1", 1, "trigger-429", null);

        // handed back to the router to place elsewhere: not a result
        await().atMost(WAIT).until(() -> eventsOf("limited-1").stream().anyMatch(e -> e.getHandedBack() != null));
        ResponseEvent limited = eventsOf("limited-1").get(0);
        assertThat(eventsOf("limited-1")).hasSize(1);
        assertThat(limited.getTerminal()).isNull();
        assertThat(limited.getHandedBack().toString()).contains("429");
        assertThat(io.kvroute.schemas.topics.RunAttempt.dispatchAttemptOf(limited.getAttempt()))
                .as("the run's dispatch attempt, which the router's next one outranks").isEqualTo(1);
        await().atMost(WAIT).until(() -> telemetry.poll().stream()
                .anyMatch(t -> t.getRateLimitedUntilMs() != null && t.getStatus() == WorkerStatus.DEGRADED));
        WorkerTelemetry cooling = telemetry.poll().stream().filter(t -> t.getRateLimitedUntilMs() != null).findFirst().orElseThrow();
        assertThat(cooling.getRateLimitedUntilMs()).isBetween(before + 29_000, System.currentTimeMillis() + 30_000);
    }

    @Test
    void shouldRetryATransientServerFailureOnTheWorkerAndDeliverTheLaterTryWhole() throws Exception {
        startWorker();
        send("flaky-1", 0, "trigger-flaky The capital of France is", null);

        ResponseEvent terminal = terminalOf("flaky-1");

        assertThat(terminal.getTerminal().getStatus()).isEqualTo(ResponseStatus.COMPLETED);
        assertThat(terminal.getRetry()).as("the second try wrote the result").isEqualTo(1);
        assertThat(flakyCalls.get()).isEqualTo(2);
        List<ResponseEvent> secondTry = eventsOf("flaky-1").stream().filter(e -> e.getRetry() == 1 && e.getTerminal() == null)
                .sorted(Comparator.comparingInt(ResponseEvent::getSequence)).toList();
        assertThat(secondTry.stream().map(e -> e.getTextDelta().toString()).collect(Collectors.joining()))
                .isEqualTo(" Paris is the capital of France.");
        assertThat(eventsOf("flaky-1")).filteredOn(e -> e.getRetry() == 0)
                .allSatisfy(e -> assertThat(e.getTerminal()).as("the cut try wrote no result").isNull());
    }

    @Test
    void shouldFailAfterTheLastRetryWithTheServersError() throws Exception {
        startWorker();
        send("broken-1", 0, "trigger-broken", null);

        ResponseEvent terminal = terminalOf("broken-1");

        assertThat(terminal.getTerminal().getStatus()).isEqualTo(ResponseStatus.FAILED);
        assertThat(terminal.getRetry()).isEqualTo(WorkerConfig.DEFAULT_RETRY_MAX);
        assertThat(brokenCalls.get()).isEqualTo(WorkerConfig.DEFAULT_RETRY_MAX + 1);
        assertThat(terminal.getTerminal().getError().toString()).contains("500");
    }
}
