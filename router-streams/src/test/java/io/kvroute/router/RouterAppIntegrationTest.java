package io.kvroute.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kvroute.platform.config.Settings;
import io.kvroute.platform.kafka.TopicCreator;
import io.kvroute.platform.testing.TestKafka;
import io.kvroute.platform.testing.TestRegistry;
import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.DeadLetterHeaders;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.RoutingDecision;
import io.kvroute.schemas.v1.WorkerStatus;
import io.kvroute.schemas.v1.WorkerTelemetry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RouterAppIntegrationTest {

    @TempDir
    Path stateDir;

    private final Serdes serdes = Serdes.forRegistryUrl(TestRegistry.url());

    private Map<String, String> settings(String prefix) {
        return RouterItSettings.of(prefix, stateDir);
    }

    @Test
    void shouldParkUntilAWorkerReportsThenDispatchOnItsPartition() throws Exception {
        KvrouteTopics topics = createTopics();

        try (RouterApp app = RouterApp.start(Settings.of(settings(topics.prefix())));
             KafkaProducer<String, Object> producer = producer(serdes)) {
            assertThat(app.awaitRunning(Duration.ofSeconds(60))).isTrue();

            long now = System.currentTimeMillis();
            InferenceRequest request = InferenceRequest.newBuilder()
                    .setRequestId("it-req-1").setTenant("tenant-it").setModel("llama-3.1-8b").setPrompt("Hello there")
                    .setMaxTokens(16).setPrefixBlockHashes(List.of(1L, 2L)).setPromptTokenEstimate(3).setSubmittedAtMs(now)
                    .build();
            producer.send(new ProducerRecord<>(topics.requests().name(), "it-req-1", request)).get();
            // no worker has reported yet: the request waits in the router's parked store
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> app.meterRegistry().get(RouterMetrics.REQUESTS_PARKED).gauge().value() == 1.0);

            WorkerTelemetry telemetry = idleWorker("east-gpu-1", 1);
            producer.send(new ProducerRecord<>(topics.workerTelemetry().name(), "east-gpu-2", new byte[] {1, 2, 3})).get();
            producer.send(new ProducerRecord<>(topics.workerTelemetry().name(), "east-gpu-1", telemetry)).get();

            List<ConsumerRecord<String, DispatchedRequest>> dispatched = readAtLeastOne(
                    topics.dispatchTopic("us-east"), serdes.valueSerde(DispatchedRequest.class).deserializer());
            assertThat(dispatched).hasSize(1);
            assertThat(dispatched.get(0).key()).isEqualTo("it-req-1");
            assertThat(dispatched.get(0).partition()).isEqualTo(1);
            assertThat(dispatched.get(0).value().getWorkerId()).isEqualTo("east-gpu-1");

            List<ConsumerRecord<String, RoutingDecision>> decisions = readAtLeastOne(
                    topics.decisions().name(), serdes.valueSerde(RoutingDecision.class).deserializer());
            assertThat(decisions).extracting(r -> r.value().getOutcome()).containsExactly(DecisionOutcome.DISPATCHED);

            List<ConsumerRecord<String, byte[]>> deadLetters = readAtLeastOne(topics.deadLetters().name(), new ByteArrayDeserializer());
            assertThat(deadLetters).singleElement().satisfies(dead -> {
                assertThat(dead.key()).isEqualTo("east-gpu-2");
                assertThat(new String(dead.headers().lastHeader(DeadLetterHeaders.SOURCE_TOPIC).value(), StandardCharsets.UTF_8))
                        .isEqualTo(topics.workerTelemetry().name());
                assertThat(new String(dead.headers().lastHeader(DeadLetterHeaders.ERROR_MESSAGE).value(), StandardCharsets.UTF_8))
                        .contains("truncated");
            });

            HttpResponse<String> metrics = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.metricsPort() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(metrics.body()).contains("kvroute_router_requests_routed").contains("kafka_stream");
            HttpResponse<String> ready = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.metricsPort() + "/health/ready")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
            assertThat(ready.body()).contains("streams RUNNING");
        }
    }

    @Test
    void shouldRejectADuplicateAfterARestartThatLostItsLocalState(@TempDir Path freshStateDir) throws Exception {
        KvrouteTopics topics = createTopics();
        Map<String, String> settings = settings(topics.prefix());
        InferenceRequest request;

        try (KafkaProducer<String, Object> producer = producer(serdes)) {
            try (RouterApp app = RouterApp.start(Settings.of(settings))) {
                assertThat(app.awaitRunning(Duration.ofSeconds(60))).isTrue();
                // built once the serdes are loaded: they admit the generated classes (enum defaults) to Avro
                request = InferenceRequest.newBuilder()
                        .setRequestId("it-dup").setTenant("tenant-it").setModel("llama-3.1-8b").setPrompt("Hello there")
                        .setMaxTokens(16).setPromptTokenEstimate(3).setSubmittedAtMs(System.currentTimeMillis())
                        .build();
                producer.send(new ProducerRecord<>(topics.requests().name(), "it-dup", request)).get();
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> app.meterRegistry().get(RouterMetrics.REQUESTS_PARKED).gauge().value() == 1.0);
            }
            // the same application on another machine: its accepted ids come back from the changelog
            settings.put("router.state.dir", freshStateDir.toString());
            try (RouterApp app = RouterApp.start(Settings.of(settings))) {
                assertThat(app.awaitRunning(Duration.ofSeconds(60))).isTrue();
                producer.send(new ProducerRecord<>(topics.requests().name(), "it-dup", request)).get();

                List<ConsumerRecord<String, ResponseEvent>> responses = readAtLeastOne(
                        topics.responses().name(), serdes.valueSerde(ResponseEvent.class).deserializer());
                assertThat(responses).hasSize(1);
                assertThat(responses.get(0).key()).isEqualTo("it-dup");
                assertThat(responses.get(0).value().getDuplicate()).isTrue();
                assertThat(responses.get(0).value().getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
                assertThat(app.meterRegistry().get(RouterMetrics.REQUESTS_PARKED).gauge().value())
                        .as("the first request still waits for capacity").isEqualTo(1.0);
            }
        }
    }

    /**
     * Another router instance's decision, written to the decisions topic, reaches this one through
     * the real broker and registry, and this instance's next request avoids the worker it loaded.
     */
    @Test
    void shouldFollowAnotherRouterInstancesDecisionsFromTheDecisionsTopic() throws Exception {
        KvrouteTopics topics = createTopics();

        try (RouterApp app = RouterApp.start(Settings.of(settings(topics.prefix())));
             KafkaProducer<String, Object> producer = producer(serdes)) {
            assertThat(app.awaitRunning(Duration.ofSeconds(60))).isTrue();
            assertThat(app.awaitFollowingPeers(Duration.ofSeconds(30))).isTrue();
            for (int partition = 0; partition < 2; partition++) {
                String worker = "east-" + (partition + 1);
                producer.send(new ProducerRecord<>(topics.workerTelemetry().name(), worker, idleWorker(worker, partition))).get();
            }
            // a peer's placement on a worker this instance has not heard from is not followed
            await().atMost(Duration.ofSeconds(30)).until(() -> app.meterRegistry().get(RouterMetrics.WORKERS).gauge().value() == 2.0);
            List<Long> hashes = new ArrayList<>();
            for (long h = 0; h < 90; h++) {
                hashes.add(5_000 + h);
            }
            RoutingDecision peers = RoutingDecision.newBuilder()
                    .setRequestId("peer-req").setTenant("tenant-b").setModel("llama-3.1-8b").setOutcome(DecisionOutcome.DISPATCHED)
                    .setRegion("us-east").setPartition(0).setWorkerId("east-1").setPolicy("kvroute").setReason("peer")
                    .setDecidedAtMs(System.currentTimeMillis()).setRouterInstance("another-instance")
                    .setPromptTokens(60_000).setMaxTokens(200).setPrefixBlockTokens(64).setPrefixBlockHashes(hashes)
                    .build();
            // a record no router wrote is skipped, and what follows it is still read
            producer.send(new ProducerRecord<>(topics.decisions().name(), "garbage", new byte[] {9, 9, 9})).get();
            producer.send(new ProducerRecord<>(topics.decisions().name(), "peer-req", peers)).get();
            await().atMost(Duration.ofSeconds(30)).until(() -> app.peers().followed() + app.peers().queued() == 1);

            InferenceRequest request = InferenceRequest.newBuilder()
                    .setRequestId("it-mine").setTenant("tenant-it").setModel("llama-3.1-8b").setPrompt("Hello there")
                    .setMaxTokens(16).setPrefixBlockHashes(List.of(1L, 2L)).setPromptTokenEstimate(3)
                    .setSubmittedAtMs(System.currentTimeMillis()).build();
            producer.send(new ProducerRecord<>(topics.requests().name(), "it-mine", request)).get();

            Deserializer<RoutingDecision> decisions = serdes.valueSerde(RoutingDecision.class).deserializer();
            Deserializer<RoutingDecision> skippingGarbage = (topic, bytes) -> bytes.length < 5 ? null : decisions.deserialize(topic, bytes);
            RoutingDecision mine = readUntil(topics.decisions().name(), skippingGarbage, d -> d != null && d.getRequestId().equals("it-mine"));
            assertThat(mine.getCandidatesConsidered()).as("both workers' telemetry had arrived").isEqualTo(2);
            assertThat(mine.getWorkerId()).as("east-1 runs the other instance's 60,000-token prefill (seconds long: still queued when this request arrives)").isEqualTo("east-2");
            assertThat(mine.getRouterInstance()).isEqualTo(app.instance());
            assertThat(app.peers().followed()).isEqualTo(1);
        }
    }

    /** Two instances of one router application share the requests partitions and each follows the other's placements. */
    @Test
    void shouldHaveTwoRouterInstancesFollowEachOther(@TempDir Path secondStateDir) throws Exception {
        KvrouteTopics topics = createTopics();
        Map<String, String> first = settings(topics.prefix());
        Map<String, String> second = new HashMap<>(first);
        second.put("router.state.dir", secondStateDir.toString());

        try (RouterApp a = RouterApp.start(Settings.of(first));
             RouterApp b = RouterApp.start(Settings.of(second));
             KafkaProducer<String, Object> producer = producer(serdes)) {
            assertThat(a.awaitRunning(Duration.ofSeconds(60))).isTrue();
            assertThat(b.awaitRunning(Duration.ofSeconds(60))).isTrue();
            assertThat(a.awaitFollowingPeers(Duration.ofSeconds(30))).isTrue();
            assertThat(b.awaitFollowingPeers(Duration.ofSeconds(30))).isTrue();
            for (int partition = 0; partition < 2; partition++) {
                String worker = "east-" + (partition + 1);
                producer.send(new ProducerRecord<>(topics.workerTelemetry().name(), worker, idleWorker(worker, partition))).get();
            }
            // both instances own a requests partition once the group has settled
            await().atMost(Duration.ofSeconds(60)).until(() -> a.state() == KafkaStreams.State.RUNNING
                    && b.state() == KafkaStreams.State.RUNNING);

            int requests = 40;
            for (int i = 0; i < requests; i++) {
                InferenceRequest request = InferenceRequest.newBuilder()
                        .setRequestId("two-" + i).setTenant("tenant-it").setModel("llama-3.1-8b").setPrompt("Hello there")
                        .setMaxTokens(16).setPrefixBlockHashes(List.of(7L, 8L)).setPromptTokenEstimate(3)
                        .setSubmittedAtMs(System.currentTimeMillis()).build();
                producer.send(new ProducerRecord<>(topics.requests().name(), request.getRequestId(), request)).get();
            }

            List<RoutingDecision> decisions = readValuesUntil(topics.decisions().name(),
                    serdes.valueSerde(RoutingDecision.class).deserializer(), read -> read.size() >= requests);
            assertThat(decisions).extracting(RoutingDecision::getRouterInstance).containsOnly(a.instance(), b.instance())
                    .contains(a.instance(), b.instance());
            long byA = decisions.stream().filter(d -> d.getRouterInstance().equals(a.instance())).count();
            long byB = requests - byA;
            // each follows the other's decisions that were written before its own last decision
            await().atMost(Duration.ofSeconds(30)).until(() -> a.peers().followed() + a.peers().queued() == byB
                    && b.peers().followed() + b.peers().queued() == byA);
        }
    }

    @Test
    void shouldFailFastWhenTheRequestsTopicIsMissing() {
        Map<String, String> s = settings("missing-" + UUID.randomUUID().toString().substring(0, 8));
        s.put("router.metrics.port", "-1");
        assertThatThrownBy(() -> RouterApp.start(Settings.of(s)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("requests topic")
                .hasMessageContaining(".requests does not exist");
    }

    @Test
    void shouldWaitBrieflyForTopicsThatAppearDuringStartUp() throws Exception {
        KvrouteTopics topics = new KvrouteTopics("late-" + UUID.randomUUID().toString().substring(0, 8), 2);
        Map<String, String> s = settings(topics.prefix());
        s.put("router.metrics.port", "-1");
        CompletableFuture<RouterApp> starting = CompletableFuture.supplyAsync(() -> RouterApp.start(Settings.of(s)));
        // created after the router first looked: an ACL granted or a topic created a moment late
        Thread.sleep(2_000);
        assertThat(starting).isNotDone();
        createTopics(topics);
        try (RouterApp app = starting.get(60, TimeUnit.SECONDS)) {
            assertThat(app.awaitRunning(Duration.ofSeconds(60))).isTrue();
        }
    }

    /** The kvroute topics under a new prefix, two partitions each, with region us-east. */
    private static KvrouteTopics createTopics() {
        return createTopics(new KvrouteTopics("it-" + UUID.randomUUID().toString().substring(0, 8), 2));
    }

    private static KvrouteTopics createTopics(KvrouteTopics topics) {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", TestKafka.bootstrapServers()))) {
            new TopicCreator(admin, (short) 1).ensure(topics.all(Map.of("us-east", 2)));
        }
        return topics;
    }

    /** An idle us-east worker owning {@code partition}, observed now. */
    private static WorkerTelemetry idleWorker(String workerId, int partition) {
        return WorkerTelemetry.newBuilder()
                .setWorkerId(workerId).setRegion("us-east").setModels(List.of("llama-3.1-8b"))
                .setOwnedPartitions(List.of(partition)).setKvBlocksTotal(28_000).setKvBlocksUsed(0).setKvUsage(0.0)
                .setRunningRequests(0).setWaitingRequests(0).setStatus(WorkerStatus.HEALTHY)
                .setObservedAtMs(System.currentTimeMillis())
                .build();
    }

    private static KafkaProducer<String, Object> producer(Serdes serdes) {
        Map<String, Object> config = new HashMap<>(TestKafka.clientConfig());
        config.put("enable.idempotence", "true");
        config.put("acks", "all");
        @SuppressWarnings({"unchecked", "rawtypes"})
        org.apache.kafka.common.serialization.Serializer<Object> values = (topic, data) ->
                data instanceof byte[] raw ? raw
                        : data instanceof WorkerTelemetry t
                        ? serdes.valueSerde(WorkerTelemetry.class).serializer().serialize(topic, t)
                        : data instanceof RoutingDecision d
                        ? serdes.valueSerde(RoutingDecision.class).serializer().serialize(topic, d)
                        : serdes.valueSerde(InferenceRequest.class).serializer().serialize(topic, (InferenceRequest) data);
        return new KafkaProducer<>(config, new StringSerializer(), values);
    }

    /** A consumer of committed records from a topic's start, in a group of its own. */
    private static Map<String, Object> readerConfig() {
        Map<String, Object> config = new HashMap<>(TestKafka.clientConfig());
        config.put("group.id", "it-reader-" + UUID.randomUUID());
        config.put("auto.offset.reset", "earliest");
        config.put("isolation.level", "read_committed");
        return config;
    }

    /** The first value on {@code topic} (from its start) that {@code wanted} accepts. */
    private static <V> V readUntil(String topic, Deserializer<V> values, java.util.function.Predicate<V> wanted) {
        return readValuesUntil(topic, values, read -> read.stream().anyMatch(wanted)).stream().filter(wanted).findFirst().orElseThrow();
    }

    /** The values on {@code topic}, from its start, until those read are {@code enough}. */
    private static <V> List<V> readValuesUntil(String topic, Deserializer<V> values, java.util.function.Predicate<List<V>> enough) {
        List<V> read = new ArrayList<>();
        try (KafkaConsumer<String, V> consumer = new KafkaConsumer<>(readerConfig(), new StringDeserializer(), values)) {
            consumer.subscribe(List.of(topic));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> read.add(r.value()));
                return enough.test(read);
            });
        }
        return read;
    }

    private static <V> List<ConsumerRecord<String, V>> readAtLeastOne(String topic, Deserializer<V> values) {
        List<ConsumerRecord<String, V>> records = new ArrayList<>();
        try (KafkaConsumer<String, V> consumer = new KafkaConsumer<>(readerConfig(), new StringDeserializer(), values)) {
            consumer.subscribe(List.of(topic));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return !records.isEmpty();
            });
            consumer.poll(Duration.ofMillis(500)).forEach(records::add);
        }
        return records;
    }
}
