package io.kvroute.worker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvroute.platform.config.Settings;
import io.kvroute.platform.kafka.TopicCreator;
import io.kvroute.platform.testing.TestKafka;
import io.kvroute.platform.testing.TestRegistry;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.DeadLetterHeaders;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.KvCacheEvent;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.WorkerStatus;
import io.kvroute.schemas.v1.WorkerTelemetry;
import io.kvroute.worker.WorkerApp;
import io.kvroute.worker.config.WorkerConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Workers on the real in-process broker and the real schema registry. */
class WorkerIntegrationTest {
    private static final String REGION = "us-east";
    private static final int SLOTS = 2;
    private static final int RESPONSE_PARTITIONS = 2;

    private String bootstrap;
    private Serdes serdes;
    private KvrouteTopics topics;
    private KafkaProducer<String, byte[]> producer;
    private final List<WorkerApp> workers = new ArrayList<>();
    private final List<AutoCloseable> logs = new ArrayList<>();

    @BeforeEach
    void setUp() {
        bootstrap = TestKafka.bootstrapServers();
        serdes = Serdes.forRegistryUrl(TestRegistry.url());
        topics = new KvrouteTopics("it" + UUID.randomUUID().toString().substring(0, 8), RESPONSE_PARTITIONS);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            new TopicCreator(admin, (short) 1).ensure(topics.all(Map.of(REGION, SLOTS)));
        }
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    }

    @AfterEach
    void tearDown() throws Exception {
        workers.forEach(WorkerApp::close);
        for (AutoCloseable log : logs) {
            log.close();
        }
        producer.close();
    }

    private WorkerApp startWorker(String id, double speed) {
        return startWorker(id, speed, Map.of());
    }

    private WorkerApp startWorker(String id, double speed, Map<String, String> extra) {
        Map<String, String> s = new HashMap<>();
        s.put(WorkerConfig.BOOTSTRAP_SERVERS, bootstrap);
        s.put(WorkerConfig.SCHEMA_REGISTRY_URL, TestRegistry.url());
        s.put(WorkerConfig.TOPIC_PREFIX, topics.prefix());
        s.put(WorkerConfig.WORKER_ID, id);
        s.put(WorkerConfig.REGION, REGION);
        s.put(WorkerConfig.SIM_SPEED, Double.toString(speed));
        s.put(WorkerConfig.TELEMETRY_INTERVAL_MS, "100");
        s.putAll(extra);
        WorkerApp app = WorkerApp.start(Settings.of(s));
        workers.add(app);
        return app;
    }

    private <T> ResponseLog<T> log(ResponseLog<T> log) {
        logs.add(log);
        return log;
    }

    private DispatchedRequest dispatched(String requestId, int partition, int promptTokens, int maxTokens, long[] hashes) {
        List<Long> hashList = new ArrayList<>();
        for (long h : hashes) {
            hashList.add(h);
        }
        InferenceRequest request = InferenceRequest.newBuilder()
                .setRequestId(requestId)
                .setCustomId("custom-" + requestId)
                .setTenant("t")
                .setModel("llama-3.1-8b")
                .setPrompt("a prompt that stays in the test")
                .setMaxTokens(maxTokens)
                .setPrefixBlockHashes(hashList)
                .setPromptTokenEstimate(promptTokens)
                .setSubmittedAtMs(System.currentTimeMillis())
                .build();
        return DispatchedRequest.newBuilder()
                .setRequest(request)
                .setAttempt(1)
                .setRegion(REGION)
                .setPartition(partition)
                .setWorkerId("unknown")
                .setPolicy("test")
                .setDecidedAtMs(System.currentTimeMillis())
                .build();
    }

    private void send(DispatchedRequest d) throws Exception {
        String topic = topics.dispatchTopic(REGION);
        byte[] value = serdes.valueSerde(DispatchedRequest.class).serializer().serialize(topic, d);
        producer.send(new ProducerRecord<>(topic, d.getPartition(), d.getRequest().getRequestId(), value)).get();
    }

    private List<String> sendRequests(String prefix, int count, int maxTokens) throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String id = prefix + i;
            ids.add(id);
            send(dispatched(id, i % SLOTS, 200 + 64 * (i % 5), maxTokens, new long[] {42, 43, 100 + i}));
        }
        return ids;
    }

    /** Every request: chunks 0..n-1 of one attempt, text of maxTokens words, then one COMPLETED terminal numbered n. */
    private static void assertCompletedExactlyOnce(List<ResponseEvent> events, List<String> ids, int maxTokens) {
        Map<String, List<ResponseEvent>> byRequest = events.stream().collect(Collectors.groupingBy(ResponseEvent::getRequestId));
        for (String id : ids) {
            List<ResponseEvent> mine = byRequest.get(id);
            assertThat(mine).as("events of " + id).isNotNull();
            List<ResponseEvent> terminals = mine.stream().filter(e -> e.getTerminal() != null).toList();
            assertThat(terminals).as("terminal events of " + id).hasSize(1);
            ResponseEvent terminal = terminals.get(0);
            assertThat(terminal.getTerminal().getStatus()).isEqualTo(ResponseStatus.COMPLETED);
            assertThat(terminal.getTerminal().getFinishReason()).isEqualTo("length");
            assertThat(terminal.getTerminal().getUsage().getCompletionTokens()).isEqualTo(maxTokens);
            assertThat(terminal.getTerminal().getTtftMs()).isNotNull().isPositive();
            assertThat(terminal.getTerminal().getRegion()).isEqualTo(REGION);
            assertThat(terminal.getCustomId()).isEqualTo("custom-" + id);

            // the response rule: only the highest attempt counts; a run abandoned in a handover has a lower one
            assertThat(mine).as("no event of " + id + " outranks its terminal")
                    .allSatisfy(e -> assertThat(e.getAttempt()).isLessThanOrEqualTo(terminal.getAttempt()));
            Map<Integer, String> chunks = new HashMap<>();
            List<Integer> arrival = new ArrayList<>();
            for (ResponseEvent e : mine) {
                if (e.getAttempt() != terminal.getAttempt()) {
                    continue;
                }
                if (e.getTerminal() == null) {
                    String previous = chunks.putIfAbsent(e.getSequence(), e.getTextDelta());
                    assertThat(previous == null || previous.equals(e.getTextDelta())).as("a repeated chunk has the same text").isTrue();
                    arrival.add(e.getSequence());
                } else {
                    assertThat(chunks.keySet()).as("every chunk of " + id + " is written before its terminal: " + mine)
                            .isEqualTo(rangeSet(terminal.getSequence()));
                }
            }
            int expectedChunks = (maxTokens + 15) / 16;
            assertThat(terminal.getSequence()).isEqualTo(expectedChunks);
            String text = new TreeSet<>(chunks.keySet()).stream().map(chunks::get).collect(Collectors.joining());
            assertThat(text.split(" ", -1)).hasSize(maxTokens + 1);
        }
    }

    private static Set<Integer> rangeSet(int endExclusive) {
        Set<Integer> s = new TreeSet<>();
        for (int i = 0; i < endExclusive; i++) {
            s.add(i);
        }
        return s;
    }

    @Test
    void shouldStreamChunksAndOneTerminalPerRequestAndDeadLetterTheUndecodable() throws Exception {
        ResponseLog<ResponseEvent> responses = log(ResponseLog.responses(bootstrap, topics.responses().name(), RESPONSE_PARTITIONS, serdes));
        ResponseLog<WorkerTelemetry> telemetry = log(new ResponseLog<>(bootstrap, topics.workerTelemetry().name(), 1,
                serdes.valueSerde(WorkerTelemetry.class).deserializer()));
        ResponseLog<KvCacheEvent> kvEvents = log(new ResponseLog<>(bootstrap, topics.kvEvents().name(), 1,
                serdes.valueSerde(KvCacheEvent.class).deserializer()));
        ResponseLog<Void> dlq = log(new ResponseLog<>(bootstrap, topics.deadLetters().name(), 1, null));

        List<String> ids = new ArrayList<>(sendRequests("a-", 10, 40));
        producer.send(new ProducerRecord<>(topics.dispatchTopic(REGION), 0, "poison",
                "not an avro record".getBytes(StandardCharsets.UTF_8))).get();
        ids.addAll(sendRequests("b-", 10, 40));

        WorkerApp worker = startWorker("w-solo", 10, Map.of(WorkerConfig.METRICS_PORT, "0"));

        await().atMost(Duration.ofSeconds(60)).until(() -> ResponseLog.terminalsByRequest(responses.poll()).keySet().containsAll(ids));
        assertCompletedExactlyOnce(responses.poll(), ids, 40);

        await().atMost(Duration.ofSeconds(20)).until(() -> !dlq.pollRaw().isEmpty());
        ConsumerRecord<String, byte[]> dead = dlq.pollRaw().get(0);
        assertThat(dead.key()).isEqualTo("poison");
        assertThat(new String(dead.value(), StandardCharsets.UTF_8)).isEqualTo("not an avro record");
        assertThat(header(dead, DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo(topics.dispatchTopic(REGION));
        assertThat(header(dead, DeadLetterHeaders.SOURCE_PARTITION)).isEqualTo("0");
        assertThat(header(dead, DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("5");
        assertThat(header(dead, DeadLetterHeaders.ERROR_CLASS)).contains("SerializationException");

        await().atMost(Duration.ofSeconds(20)).until(() -> telemetry.poll().stream()
                .anyMatch(t -> t.getWorkerId().equals("w-solo") && t.getOwnedPartitions().equals(List.of(0, 1))));
        send(dispatched("late", 1, 300, 3, new long[] {42, 43, 999}));
        await().atMost(Duration.ofSeconds(20)).until(() -> ResponseLog.terminalsByRequest(responses.poll()).containsKey("late"));
        ResponseEvent late = ResponseLog.terminalsByRequest(responses.poll()).get("late").get(0);
        assertThat(late.getTerminal().getUsage().getCachedTokens()).as("the shared 2-block prefix is cached").isEqualTo(128);
        await().atMost(Duration.ofSeconds(20)).until(() -> telemetry.poll().stream()
                .anyMatch(t -> t.getPrefixCacheHitRate() > 0 && t.getStatus() == WorkerStatus.HEALTHY
                        && t.getKvBlocksTotal() == WorkerConfig.DEFAULT_KV_BLOCKS));

        await().atMost(Duration.ofSeconds(20)).until(() -> kvEvents.poll().stream()
                .anyMatch(e -> e.getStoredBlockHashes().contains(42L) && e.getStoredBlockHashes().contains(43L)));

        String scrape = new String(java.net.URI.create("http://127.0.0.1:" + worker.metricsPort() + "/metrics").toURL()
                .openStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(scrape).contains("kvroute_worker_requests_total").contains("kvroute_worker_kv_usage")
                .contains("kafka_consumer");
        String ready = new String(java.net.URI.create("http://127.0.0.1:" + worker.metricsPort() + "/health/ready").toURL()
                .openStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(ready).as("served 200 (openStream throws on 503)").isEqualTo("{\"status\":\"UP\",\"detail\":\"dispatch partitions [0, 1]\"}");

        worker.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> telemetry.poll().stream()
                .anyMatch(t -> t.getWorkerId().equals("w-solo") && t.getStatus() == WorkerStatus.DOWN));
    }

    @Test
    void shouldNameInItsKvEventsThePrefixBlocksMovedToHostMemoryAndBack() throws Exception {
        ResponseLog<ResponseEvent> responses = log(ResponseLog.responses(bootstrap, topics.responses().name(), RESPONSE_PARTITIONS, serdes));
        ResponseLog<KvCacheEvent> kvEvents = log(new ResponseLog<>(bootstrap, topics.kvEvents().name(), 1,
                serdes.valueSerde(KvCacheEvent.class).deserializer()));
        // 64 GPU pages of 16 tokens: the second prompt's 960 tokens push the first's 4 blocks (64 tokens each) out
        WorkerApp worker = startWorker("w-tiers", 10, Map.of(WorkerConfig.SIM_KV_BLOCKS, "64", WorkerConfig.SIM_HOST_KV_BLOCKS, "256"));
        await().atMost(Duration.ofSeconds(30)).until(() -> worker.ownedPartitions().size() == SLOTS);
        long[] first = {500, 501, 502, 503};
        long[] second = new long[15];
        for (int i = 0; i < second.length; i++) {
            second[i] = 600 + i;
        }

        send(dispatched("first", 0, 256, 1, first));
        await().atMost(Duration.ofSeconds(20)).until(() -> ResponseLog.terminalsByRequest(responses.poll()).containsKey("first"));
        send(dispatched("second", 0, 960, 1, second));
        await().atMost(Duration.ofSeconds(20)).until(() -> !tierMoves(kvEvents, KvCacheEvent::getOffloadedBlockHashes).isEmpty());
        Set<Long> offloaded = tierMoves(kvEvents, KvCacheEvent::getOffloadedBlockHashes);
        assertThat(offloaded).as("the first prompt's blocks pushed out of GPU memory").isSubsetOf(500L, 501L, 502L, 503L);
        assertThat(tierMoves(kvEvents, KvCacheEvent::getEvictedBlockHashes)).as("in host memory, still held").isEmpty();

        send(dispatched("again", 0, 300, 1, new long[] {500, 501, 502, 503, 999}));
        await().atMost(Duration.ofSeconds(20)).until(() -> ResponseLog.terminalsByRequest(responses.poll()).containsKey("again"));
        ResponseEvent again = ResponseLog.terminalsByRequest(responses.poll()).get("again").get(0);
        assertThat(again.getTerminal().getUsage().getCachedTokens()).as("loaded from host memory, not recomputed").isEqualTo(256);
        await().atMost(Duration.ofSeconds(20)).until(() -> tierMoves(kvEvents, KvCacheEvent::getReloadedBlockHashes).equals(offloaded));
    }

    private static Set<Long> tierMoves(ResponseLog<KvCacheEvent> kvEvents, Function<KvCacheEvent, List<Long>> moves) {
        return kvEvents.poll().stream().filter(e -> e.getWorkerId().equals("w-tiers"))
                .flatMap(e -> moves.apply(e).stream()).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void shouldAnswerARequestPastItsDeadlineExpiredWithoutRunningIt() throws Exception {
        ResponseLog<ResponseEvent> responses = log(ResponseLog.responses(bootstrap, topics.responses().name(), RESPONSE_PARTITIONS, serdes));
        WorkerApp worker = startWorker("w-deadline", 10);
        await().atMost(Duration.ofSeconds(30)).until(() -> worker.ownedPartitions().size() == SLOTS);
        DispatchedRequest late = dispatched("late", 0, 200, 40, new long[] {7});
        late.getRequest().setDeadlineMs(System.currentTimeMillis() - 1_000);
        send(late);
        List<String> onTime = sendRequests("on-time-", 2, 40);

        await().atMost(Duration.ofSeconds(30)).until(() -> ResponseLog.terminalsByRequest(responses.poll()).keySet().containsAll(onTime)
                && ResponseLog.terminalsByRequest(responses.poll()).containsKey("late"));
        List<ResponseEvent> lateEvents = responses.poll().stream().filter(e -> e.getRequestId().equals("late")).toList();
        assertThat(lateEvents).hasSize(1);
        assertThat(lateEvents.get(0).getTerminal().getStatus()).isEqualTo(ResponseStatus.EXPIRED);
        assertThat(lateEvents.get(0).getTerminal().getUsage().getCompletionTokens()).isZero();
        assertCompletedExactlyOnce(responses.poll(), onTime, 40);
    }

    @Test
    void shouldShareTheRegionBetweenTwoWorkersAndCompleteEachRequestOnce() throws Exception {
        ResponseLog<ResponseEvent> responses = log(ResponseLog.responses(bootstrap, topics.responses().name(), RESPONSE_PARTITIONS, serdes));
        WorkerApp first = startWorker("w-1", 10);
        WorkerApp second = startWorker("w-2", 10);
        await().atMost(Duration.ofSeconds(30)).until(() -> first.ownedPartitions().size() == 1 && second.ownedPartitions().size() == 1);

        List<String> ids = sendRequests("r-", 30, 20);

        await().atMost(Duration.ofSeconds(60)).until(() -> ResponseLog.terminalsByRequest(responses.poll()).keySet().containsAll(ids));
        assertCompletedExactlyOnce(responses.poll(), ids, 20);
        Set<String> servedBy = responses.poll().stream().filter(e -> e.getTerminal() != null)
                .map(e -> e.getTerminal().getWorkerId()).collect(Collectors.toSet());
        assertThat(servedBy).containsExactlyInAnyOrder("w-1", "w-2");
    }

    @Test
    void shouldNotRunAgainWhatAPreviousOwnerFinishedOutOfOrder() throws Exception {
        ResponseLog<ResponseEvent> responses = log(ResponseLog.responses(bootstrap, topics.responses().name(), RESPONSE_PARTITIONS, serdes));
        send(dispatched("slow", 0, 100, 3000, new long[0]));
        List<String> quick = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            quick.add("quick-" + i);
            send(dispatched("quick-" + i, 0, 100, 5, new long[0]));
        }
        WorkerApp before = startWorker("w-before", 1);
        await().atMost(Duration.ofSeconds(30)).until(() -> ResponseLog.terminalsByRequest(responses.poll()).keySet().containsAll(quick));
        assertThat(ResponseLog.terminalsByRequest(responses.poll())).doesNotContainKey("slow");
        before.close();

        startWorker("w-after", 50);
        await().atMost(Duration.ofSeconds(30)).until(() -> ResponseLog.terminalsByRequest(responses.poll()).containsKey("slow"));

        Map<String, List<ResponseEvent>> terminals = ResponseLog.terminalsByRequest(responses.poll());
        assertThat(terminals.get("slow")).hasSize(1);
        assertThat(terminals.get("slow").get(0).getTerminal().getWorkerId()).isEqualTo("w-after");
        for (String id : quick) {
            assertThat(terminals.get(id)).as("terminals of " + id).hasSize(1);
            assertThat(terminals.get(id).get(0).getTerminal().getWorkerId()).isEqualTo("w-before");
        }
        assertCompletedExactlyOnce(responses.poll(), List.of("slow"), 3000);
    }

    @Test
    void shouldCompleteEachRequestOnceWhenASecondWorkerJoinsUnderLoad() throws Exception {
        ResponseLog<ResponseEvent> responses = log(ResponseLog.responses(bootstrap, topics.responses().name(), RESPONSE_PARTITIONS, serdes));
        List<String> ids = sendRequests("load-", 60, 200);
        WorkerApp first = startWorker("w-first", 4);
        await().atMost(Duration.ofSeconds(20)).until(() -> !ResponseLog.terminalsByRequest(responses.poll()).isEmpty());
        WorkerApp second = startWorker("w-second", 4);
        await().atMost(Duration.ofSeconds(30)).until(() -> first.ownedPartitions().size() == 1 && second.ownedPartitions().size() == 1);

        await().atMost(Duration.ofSeconds(60)).until(() -> ResponseLog.terminalsByRequest(responses.poll()).keySet().containsAll(ids));
        assertCompletedExactlyOnce(responses.poll(), ids, 200);
    }

    @Test
    void shouldPausePollingWhileTheEngineQueueIsFull() throws Exception {
        ResponseLog<ResponseEvent> responses = log(ResponseLog.responses(bootstrap, topics.responses().name(), RESPONSE_PARTITIONS, serdes));
        ResponseLog<WorkerTelemetry> telemetry = log(new ResponseLog<>(bootstrap, topics.workerTelemetry().name(), 1,
                serdes.valueSerde(WorkerTelemetry.class).deserializer()));
        List<String> ids = sendRequests("bp-", 40, 10);
        startWorker("w-narrow", 10, Map.of(WorkerConfig.SIM_MAX_RUNNING, "1", WorkerConfig.MAX_WAITING, "2",
                WorkerConfig.TELEMETRY_INTERVAL_MS, "20", "kafka.max.poll.records", "2"));

        await().atMost(Duration.ofSeconds(60)).until(() -> ResponseLog.terminalsByRequest(responses.poll()).keySet().containsAll(ids));
        assertCompletedExactlyOnce(responses.poll(), ids, 10);
        int maxWaitingSeen = telemetry.poll().stream().mapToInt(WorkerTelemetry::getWaitingRequests).max().orElse(-1);
        assertThat(maxWaitingSeen).as("waiting requests stay near the bound (2) plus one poll (2)").isBetween(1, 4);
    }

    @Test
    void shouldFenceAnOlderInstanceWithTheSameWorkerId() throws Exception {
        ResponseLog<ResponseEvent> responses = log(ResponseLog.responses(bootstrap, topics.responses().name(), RESPONSE_PARTITIONS, serdes));
        WorkerApp old = startWorker("w-same", 2);
        await().atMost(Duration.ofSeconds(20)).until(() -> old.ownedPartitions().size() == SLOTS);
        List<String> ids = new ArrayList<>(sendRequests("f-", 20, 100));
        await().atMost(Duration.ofSeconds(20)).until(() -> !ResponseLog.terminalsByRequest(responses.poll()).isEmpty());

        WorkerApp successor = startWorker("w-same", 10);
        await().atMost(Duration.ofSeconds(20)).until(() -> successor.ownedPartitions().size() == 1);
        ids.addAll(sendRequests("g-", 20, 100));

        await().atMost(Duration.ofSeconds(30)).until(() -> !old.isRunning());
        await().atMost(Duration.ofSeconds(60)).until(() -> ResponseLog.terminalsByRequest(responses.poll()).keySet().containsAll(ids));
        assertCompletedExactlyOnce(responses.poll(), ids, 100);
        assertThat(successor.isRunning()).isTrue();
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        Header h = record.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
