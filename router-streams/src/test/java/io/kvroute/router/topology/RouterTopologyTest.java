package io.kvroute.router.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.kvroute.platform.config.Settings;
import io.kvroute.router.admission.RequestValidator;
import io.kvroute.router.config.RouterConfig;
import io.kvroute.router.errors.GlobalDeadLetters;
import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.DeadLetterHeaders;
import io.kvroute.schemas.topics.DecisionComponents;
import io.kvroute.schemas.topics.DecisionHeaders;
import io.kvroute.schemas.topics.RunAttempt;
import io.kvroute.schemas.v1.CancelRequest;
import io.kvroute.schemas.v1.ChatMessage;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.RoutingDecision;
import io.kvroute.schemas.v1.SamplingParams;
import io.kvroute.schemas.v1.WorkerTelemetry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RouterTopologyTest {
    private static final long T0 = 1_800_000_000_000L;
    private static final long DEDUP_RETENTION_MS = 60_000;

    @TempDir
    Path stateDir;

    private RouterConfig config;
    private Serdes serdes;
    private RouterMetrics metrics;
    private TopologyTestDriver driver;
    private TestInputTopic<String, InferenceRequest> requests;
    private TestInputTopic<byte[], byte[]> rawRequests;
    private TestInputTopic<String, WorkerTelemetry> telemetry;
    private TestInputTopic<String, byte[]> rawTelemetry;
    private TestOutputTopic<String, DispatchedRequest> dispatchEast;
    private TestOutputTopic<String, DispatchedRequest> dispatchWest;
    private TestOutputTopic<String, RoutingDecision> decisions;
    private TestOutputTopic<String, ResponseEvent> responses;
    private TestOutputTopic<byte[], byte[]> deadLetters;
    private TestInputTopic<String, CancelRequest> cancellations;
    private TestInputTopic<String, byte[]> rawCancellations;
    private final List<TestRecord<byte[], byte[]>> globalDeadLetters = new java.util.ArrayList<>();

    @BeforeEach
    void startDriver() {
        Map<String, String> settings = new HashMap<>();
        settings.put("bootstrap.servers", "unused:9092");
        settings.put("schema.registry.url", "mock://router-topology-" + UUID.randomUUID());
        settings.put("router.regions", "us-east,eu-west");
        settings.put("router.models", "llama-3.1-8b:8192");
        settings.put("router.max.prompt.tokens", "6000");
        settings.put("router.state.dir", stateDir.toString());
        settings.put("router.parked.max.count", "3");
        settings.put("router.dedup.retention.ms", Long.toString(DEDUP_RETENTION_MS));
        config = RouterConfig.from(Settings.of(settings));
        serdes = new Serdes(config.serdeConfig());
        metrics = new RouterMetrics(new SimpleMeterRegistry());
        Properties props = config.streamsProperties();
        GlobalDeadLetters capture = (key, value, headers) -> globalDeadLetters.add(new TestRecord<>(key, value, headers));
        driver = new TopologyTestDriver(RouterTopology.build(config, serdes, metrics, capture), props, Instant.ofEpochMilli(T0));
        var topics = config.topics();
        requests = driver.createInputTopic(topics.requests().name(), new StringSerializer(),
                serdes.valueSerde(InferenceRequest.class).serializer());
        rawRequests = driver.createInputTopic(topics.requests().name(), new ByteArraySerializer(), new ByteArraySerializer());
        telemetry = driver.createInputTopic(topics.workerTelemetry().name(), new StringSerializer(),
                serdes.valueSerde(WorkerTelemetry.class).serializer());
        rawTelemetry = driver.createInputTopic(topics.workerTelemetry().name(), new StringSerializer(), new ByteArraySerializer());
        dispatchEast = driver.createOutputTopic(topics.dispatchTopic("us-east"), new StringDeserializer(),
                serdes.valueSerde(DispatchedRequest.class).deserializer());
        dispatchWest = driver.createOutputTopic(topics.dispatchTopic("eu-west"), new StringDeserializer(),
                serdes.valueSerde(DispatchedRequest.class).deserializer());
        decisions = driver.createOutputTopic(topics.decisions().name(), new StringDeserializer(),
                serdes.valueSerde(RoutingDecision.class).deserializer());
        responses = driver.createOutputTopic(topics.responses().name(), new StringDeserializer(),
                serdes.valueSerde(ResponseEvent.class).deserializer());
        cancellations = driver.createInputTopic(topics.cancellations().name(), new StringSerializer(),
                serdes.valueSerde(CancelRequest.class).serializer());
        rawCancellations = driver.createInputTopic(topics.cancellations().name(), new StringSerializer(), new ByteArraySerializer());
        deadLetters = driver.createOutputTopic(topics.deadLetters().name(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    @AfterEach
    void closeDriver() {
        driver.close();
    }

    private long now() {
        return T0 + elapsed;
    }

    private long elapsed;

    private void advance(long ms) {
        elapsed += ms;
        driver.advanceWallClockTime(Duration.ofMillis(ms));
    }

    private void report(String workerId, String region, List<Integer> partitions) {
        telemetry.pipeInput(workerId, Records.telemetry(workerId, region, partitions, now()).build());
    }

    @Test
    void shouldDispatchAValidRequestToTheChosenRegionAndPartitionWithADecision() {
        report("east-1", "us-east", List.of(2, 3));
        InferenceRequest request = Records.request("req-1", now()).setAllowedRegions(List.of("us-east")).build();

        requests.pipeInput("req-1", request);

        TestRecord<String, DispatchedRequest> dispatched = dispatchEast.readRecord();
        assertThat(dispatched.key()).isEqualTo("req-1");
        assertThat(dispatched.value().getWorkerId()).isEqualTo("east-1");
        assertThat(dispatched.value().getRegion()).isEqualTo("us-east");
        assertThat(dispatched.value().getPartition()).isEqualTo(2);
        assertThat(dispatched.value().getAttempt()).isEqualTo(1);
        assertThat(dispatched.value().getPolicy()).isEqualTo("kvroute");
        assertThat(dispatched.value().getRequest()).isEqualTo(request);
        assertThat(dispatchWest.isEmpty()).isTrue();

        TestRecord<String, RoutingDecision> decisionRecord = decisions.readRecord();
        RoutingDecision decision = decisionRecord.value();
        assertThat(DecisionHeaders.isFrom(decisionRecord.headers(), DecisionHeaders.instanceValue(decision.getRouterInstance())))
                .as("the header names the instance, for its peer follower to skip without decoding").isTrue();
        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.DISPATCHED);
        assertThat(decision.getWorkerId()).isEqualTo("east-1");
        assertThat(decision.getPartition()).isEqualTo(2);
        assertThat(decision.getCandidatesConsidered()).isEqualTo(1);
        assertThat(decision.getPromptBlocks()).isEqualTo(3);
        assertThat(decision.getTopCandidates()).hasSize(1);
        assertThat(DecisionComponents.of(decision, decision.getTopCandidates().get(0))).containsKeys("queue_ms", "prefill_ms", "kv");
        assertThat(decision.getReason()).startsWith("lowest estimated TTFT");
        assertThat(decision.getReason()).doesNotContain("Summarise");
        assertThat(responses.isEmpty()).isTrue();
        assertThat(metrics.registry().counter(RouterMetrics.REQUESTS_ROUTED, "region", "us-east", "policy", "kvroute").count())
                .isEqualTo(1.0);
    }

    @Test
    void shouldCarryTheCacheSaltToTheWorkerAndNotIntoTheDecision() {
        report("east-1", "us-east", List.of(2, 3));
        InferenceRequest request = Records.request("req-salt", now()).setCacheSalt("9968a4cfb543259b18ea8ded1028ba8e").build();

        requests.pipeInput("req-salt", request);

        assertThat(dispatchEast.readValue().getRequest().getCacheSalt()).isEqualTo("9968a4cfb543259b18ea8ded1028ba8e");
        assertThat(decisions.readValue().toString()).doesNotContain("9968a4cfb543259b18ea8ded1028ba8e");
    }

    @Test
    void shouldSendGarbageToTheDeadLetterTopicAndRejectItsKey() {
        byte[] garbage = "definitely not avro".getBytes(StandardCharsets.UTF_8);
        rawRequests.pipeInput("bad-1".getBytes(StandardCharsets.UTF_8), garbage);

        TestRecord<byte[], byte[]> dead = deadLetters.readRecord();
        assertThat(new String(dead.key(), StandardCharsets.UTF_8)).isEqualTo("bad-1");
        assertThat(dead.value()).isEqualTo(garbage);
        assertThat(header(dead, DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo("kvroute.requests");
        assertThat(header(dead, DeadLetterHeaders.SOURCE_PARTITION)).isEqualTo("0");
        assertThat(header(dead, DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("0");
        assertThat(header(dead, DeadLetterHeaders.ERROR_CLASS)).contains("SerializationException");
        assertThat(header(dead, DeadLetterHeaders.ERROR_MESSAGE)).contains("magic byte");
        assertThat(header(dead, DeadLetterHeaders.FAILED_AT_MS)).isEqualTo(Long.toString(T0));

        ResponseEvent response = responses.readValue();
        assertThat(response.getRequestId()).isEqualTo("bad-1");
        assertThat(response.getAttempt()).isEqualTo(1);
        assertThat(response.getSequence()).isZero();
        assertThat(response.getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
        assertThat(response.getTerminal().getError()).startsWith("undecodable");
        assertThat(decisions.readValue().getOutcome()).isEqualTo(DecisionOutcome.REJECTED);
        assertThat(metrics.registry().counter(RouterMetrics.REQUESTS_DEAD_LETTERED).count()).isEqualTo(1.0);
    }

    @Test
    void shouldDeadLetterTruncatedAndUnknownSchemaRecordsAndKeepRouting() {
        report("east-1", "us-east", List.of(0));
        byte[] valid = serdes.valueSerde(InferenceRequest.class).serializer()
                .serialize(config.topics().requests().name(), Records.request("whole", now()).build());
        rawRequests.pipeInput("cut".getBytes(StandardCharsets.UTF_8), Arrays.copyOf(valid, valid.length / 2));
        byte[] unknownId = valid.clone();
        unknownId[1] = 0x7f;
        rawRequests.pipeInput("unknown-id".getBytes(StandardCharsets.UTF_8), unknownId);
        rawRequests.pipeInput(new byte[] {(byte) 0xc3, (byte) 0x28}, new byte[] {1, 2, 3});
        requests.pipeInput("fine", Records.request("fine", now()).build());

        List<TestRecord<byte[], byte[]>> dead = deadLetters.readRecordsToList();
        assertThat(dead).hasSize(3);
        assertThat(header(dead.get(0), DeadLetterHeaders.ERROR_MESSAGE)).contains("truncated");
        assertThat(header(dead.get(1), DeadLetterHeaders.ERROR_MESSAGE)).contains("unknown schema id");
        assertThat(responses.readRecordsToList()).extracting(TestRecord::key).containsExactly("cut", "unknown-id");
        assertThat(dispatchEast.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("fine");
    }

    static Stream<Arguments> invalidRequests() {
        return Stream.of(
                Arguments.of("empty_request_id", (Consumer<InferenceRequest.Builder>) b -> b.setRequestId("")),
                Arguments.of("empty_prompt", (Consumer<InferenceRequest.Builder>) b -> b.setPrompt("").setMessages(List.of())),
                Arguments.of("max_tokens", (Consumer<InferenceRequest.Builder>) b -> b.setMaxTokens(0)),
                Arguments.of("max_tokens", (Consumer<InferenceRequest.Builder>) b -> b.setMaxTokens(8193)),
                Arguments.of("prompt_too_long", (Consumer<InferenceRequest.Builder>) b -> b.setPromptTokenEstimate(6001)),
                Arguments.of("prompt_too_long", (Consumer<InferenceRequest.Builder>) b -> b.setPromptTokenEstimate(10)
                        .setPrompt("x".repeat(4 * 6001))),
                Arguments.of("unknown_model", (Consumer<InferenceRequest.Builder>) b -> b.setModel("gpt-9")),
                Arguments.of("deadline_passed", (Consumer<InferenceRequest.Builder>) b -> b.setDeadlineMs(T0 - 1)),
                Arguments.of("unknown_region", (Consumer<InferenceRequest.Builder>) b -> b.setAllowedRegions(List.of("mars-1"))),
                Arguments.of("too_many_messages", (Consumer<InferenceRequest.Builder>) b -> b.setMessages(
                        java.util.Collections.nCopies(RouterConfig.DEFAULT_MAX_MESSAGES + 1, new ChatMessage("user", "")))),
                Arguments.of("too_many_stop_strings", (Consumer<InferenceRequest.Builder>) b -> b.setSampling(
                        SamplingParams.newBuilder().setStop(java.util.Collections.nCopies(RouterConfig.DEFAULT_MAX_STOP_STRINGS + 1, "\n"))
                                .build())),
                Arguments.of("too_many_prefix_hashes", (Consumer<InferenceRequest.Builder>) b -> b.setPrefixBlockHashes(
                        java.util.stream.LongStream.range(0, RouterConfig.DEFAULT_MAX_PREFIX_HASHES + 1).boxed().toList())),
                Arguments.of("cache_salt_too_long", (Consumer<InferenceRequest.Builder>) b -> b.setCacheSalt(
                        "s".repeat(RequestValidator.MAX_CACHE_SALT_CHARS + 1))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidRequests")
    void shouldRejectAnInvalidRequestWithItsReason(String kind, Consumer<InferenceRequest.Builder> breakIt) {
        report("east-1", "us-east", List.of(0));
        InferenceRequest.Builder builder = Records.request("req-x", now());
        breakIt.accept(builder);

        requests.pipeInput("req-x", builder.build());

        ResponseEvent response = responses.readValue();
        assertThat(response.getRequestId()).isEqualTo("req-x");
        assertThat(response.getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
        assertThat(response.getTerminal().getError()).startsWith(kind + ":");
        RoutingDecision decision = decisions.readValue();
        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.REJECTED);
        assertThat(decision.getReason()).startsWith(kind + ":");
        assertThat(dispatchEast.isEmpty()).isTrue();
        assertThat(deadLetters.isEmpty()).isTrue();
        assertThat(metrics.registry().counter(RouterMetrics.REQUESTS_REJECTED, "reason", kind).count()).isEqualTo(1.0);

        requests.pipeInput("good", Records.request("good", now()).build());
        assertThat(dispatchEast.readKeyValuesToList()).as("nothing else disturbed").extracting(kv -> kv.key).containsExactly("good");
        assertThat(responses.isEmpty()).isTrue();
    }

    static Stream<Arguments> undecodableBytes() {
        return Stream.of(
                Arguments.of("bytes that are not Avro", (UnaryOperator<byte[]>) valid -> "{\"prompt\": \"hi\"}".getBytes(StandardCharsets.UTF_8),
                        "magic byte"),
                Arguments.of("wrong magic byte", (UnaryOperator<byte[]>) valid -> withByte(valid, 0, (byte) 1), "magic byte 0x01"),
                Arguments.of("unknown schema id", (UnaryOperator<byte[]>) valid -> withByte(valid, 1, (byte) 0x7f), "unknown schema id"),
                Arguments.of("truncated record", (UnaryOperator<byte[]>) valid -> Arrays.copyOf(valid, valid.length / 2), "truncated"),
                Arguments.of("header without a body", (UnaryOperator<byte[]>) valid -> Arrays.copyOf(valid, 5), "truncated"),
                Arguments.of("Avro header, garbage body", (UnaryOperator<byte[]>) valid -> {
                    byte[] bad = Arrays.copyOf(valid, 25);
                    Arrays.fill(bad, 5, bad.length, (byte) 0xff);
                    return bad;
                }, "InferenceRequest"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("undecodableBytes")
    void shouldDeadLetterUndecodableBytesWithReasonHeadersRejectTheirIdAndKeepRouting(String name, UnaryOperator<byte[]> corrupt,
                                                                                      String reason) {
        report("east-1", "us-east", List.of(0));
        byte[] valid = serdes.valueSerde(InferenceRequest.class).serializer()
                .serialize(config.topics().requests().name(), Records.request("poison", now()).build());
        byte[] poison = corrupt.apply(valid);

        rawRequests.pipeInput("poison".getBytes(StandardCharsets.UTF_8), poison);
        requests.pipeInput("good", Records.request("good", now()).build());

        TestRecord<byte[], byte[]> dead = deadLetters.readRecord();
        assertThat(deadLetters.isEmpty()).isTrue();
        assertThat(dead.value()).isEqualTo(poison);
        assertThat(header(dead, DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo("kvroute.requests");
        assertThat(header(dead, DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("0");
        assertThat(header(dead, DeadLetterHeaders.ERROR_CLASS)).isNotBlank();
        assertThat(header(dead, DeadLetterHeaders.ERROR_MESSAGE)).contains(reason);
        ResponseEvent rejected = responses.readValue();
        assertThat(responses.isEmpty()).isTrue();
        assertThat(rejected.getRequestId()).isEqualTo("poison");
        assertThat(rejected.getDuplicate()).isFalse();
        assertThat(rejected.getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
        assertThat(rejected.getTerminal().getError()).startsWith("undecodable:").contains(reason);
        assertThat(decisions.readValuesToList()).extracting(RoutingDecision::getRequestId, RoutingDecision::getOutcome)
                .containsExactly(tuple("poison", DecisionOutcome.REJECTED), tuple("good", DecisionOutcome.DISPATCHED));
        assertThat(dispatchEast.readKeyValuesToList()).as("nothing else disturbed").extracting(kv -> kv.key).containsExactly("good");
    }

    @Test
    void shouldDeadLetterAnInvalidRequestWhoseIdCannotBeReadWithoutAnswering() {
        report("east-1", "us-east", List.of(0));
        byte[] noId = serdes.valueSerde(InferenceRequest.class).serializer()
                .serialize(config.topics().requests().name(), Records.request("", now()).build());

        rawRequests.pipeInput(null, noId);
        requests.pipeInput("good", Records.request("good", now()).build());

        TestRecord<byte[], byte[]> dead = deadLetters.readRecord();
        assertThat(dead.key()).isNull();
        assertThat(header(dead, DeadLetterHeaders.ERROR_MESSAGE)).startsWith("empty_request_id");
        assertThat(responses.isEmpty()).isTrue();
        assertThat(dispatchEast.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("good");
    }

    private static byte[] withByte(byte[] bytes, int index, byte value) {
        byte[] copy = bytes.clone();
        copy[index] = value;
        return copy;
    }

    @Test
    void shouldParkARequestUntilAWorkerReports() {
        requests.pipeInput("early", Records.request("early", now()).build());
        requests.pipeInput("early-2", Records.request("early-2", now()).build());
        assertThat(dispatchEast.isEmpty()).isTrue();
        assertThat(decisions.isEmpty()).isTrue();
        assertThat(metrics.parked()).isEqualTo(2);

        advance(200);
        assertThat(dispatchEast.isEmpty()).isTrue();

        report("east-1", "us-east", List.of(0, 1));
        advance(100);

        assertThat(dispatchEast.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("early", "early-2");
        assertThat(decisions.readValuesToList()).extracting(RoutingDecision::getOutcome)
                .containsExactly(DecisionOutcome.DISPATCHED, DecisionOutcome.DISPATCHED);
        assertThat(metrics.parked()).isZero();
    }

    @Test
    void shouldRefuseAtOnceWhenTheParkedBacklogIsFull() {
        for (int i = 0; i < 4; i++) {
            requests.pipeInput("waiting-" + i, Records.request("waiting-" + i, now()).build());
        }

        assertThat(metrics.parked()).isEqualTo(3);
        ResponseEvent refused = responses.readValue();
        assertThat(refused.getRequestId()).isEqualTo("waiting-3");
        assertThat(refused.getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
        assertThat(refused.getTerminal().getError()).contains("3 requests waiting");
        assertThat(decisions.readValue().getOutcome()).isEqualTo(DecisionOutcome.NO_CAPACITY);
    }

    @Test
    void shouldServeParkedRequestsBeforeLaterArrivals() {
        requests.pipeInput("first", Records.request("first", now()).build());
        report("east-1", "us-east", List.of(0));
        requests.pipeInput("second", Records.request("second", now()).build());
        assertThat(dispatchEast.isEmpty()).as("the newcomer waits behind the parked request").isTrue();

        advance(100);

        assertThat(dispatchEast.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("first", "second");
    }

    @Test
    void shouldParkWhileTheOnlyWorkerHasStaleTelemetry() {
        report("east-1", "us-east", List.of(0));
        advance(2_500);
        requests.pipeInput("late", Records.request("late", now()).build());
        assertThat(dispatchEast.isEmpty()).isTrue();

        report("east-1", "us-east", List.of(0));
        advance(60);

        assertThat(dispatchEast.readKeyValue().key).isEqualTo("late");
    }

    @Test
    void shouldRefuseTelemetryStampedFarAheadOfTheRouterClockSoASilentWorkerGoesStale() {
        report("east-1", "us-east", List.of(0));
        telemetry.pipeInput("east-1", Records.telemetry("east-1", "us-east", List.of(0), now() + 3_600_000).build());

        assertThat(metrics.registry().counter(RouterMetrics.TELEMETRY_SKIPPED, "reason", "clock_skew").count()).isEqualTo(1.0);
        assertThat(globalDeadLetters).singleElement().satisfies(dead ->
                assertThat(header(dead, DeadLetterHeaders.ERROR_MESSAGE)).contains("ahead of the router's clock"));
        advance(2_500);
        requests.pipeInput("late", Records.request("late", now()).build());
        assertThat(dispatchEast.isEmpty()).as("silent past the TTL since its last accepted record").isTrue();
    }

    @Test
    void shouldMeasureAWorkersSilenceByReceiptTimeWhenItsClockRunsAhead() {
        telemetry.pipeInput("east-1", Records.telemetry("east-1", "us-east", List.of(0), now() + 5_000).build());
        requests.pipeInput("now", Records.request("now", now()).build());
        assertThat(dispatchEast.readKeyValue().key).as("a few seconds of skew is accepted").isEqualTo("now");

        advance(2_500);
        requests.pipeInput("after-silence", Records.request("after-silence", now()).build());

        assertThat(dispatchEast.isEmpty()).as("2.5 s silent by the router's clock: stale, whatever the stamp says").isTrue();
    }

    @Test
    void shouldRefuseTelemetryStampedBeforeTheEpoch() {
        telemetry.pipeInput("east-1", Records.telemetry("east-1", "us-east", List.of(0), Long.MIN_VALUE).build());
        requests.pipeInput("r1", Records.request("r1", now()).build());

        assertThat(dispatchEast.isEmpty()).as("an age of now - Long.MIN overflows to fresh").isTrue();
        assertThat(metrics.registry().counter(RouterMetrics.TELEMETRY_SKIPPED, "reason", "implausible").count()).isEqualTo(1.0);
    }

    @Test
    void shouldExpireAParkedRequestWhoseDeadlinePasses() {
        requests.pipeInput("hurry", Records.request("hurry", now()).setDeadlineMs(T0 + 300).build());
        advance(100);
        assertThat(responses.isEmpty()).isTrue();

        advance(300);

        ResponseEvent response = responses.readValue();
        assertThat(response.getRequestId()).isEqualTo("hurry");
        assertThat(response.getTerminal().getStatus()).isEqualTo(ResponseStatus.EXPIRED);
        RoutingDecision decision = decisions.readValue();
        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.NO_CAPACITY);
        assertThat(decision.getReason()).startsWith("expired");
        assertThat(metrics.parked()).isZero();

        report("east-1", "us-east", List.of(0));
        advance(100);
        assertThat(dispatchEast.isEmpty()).isTrue();
    }

    @Test
    void shouldAnswerAParkedRequestThatIsCancelledWithCancelledAndNeverDispatchIt() {
        requests.pipeInput("parked", Records.request("parked", now()).build());
        requests.pipeInput("kept", Records.request("kept", now()).build());
        assertThat(metrics.parked()).isEqualTo(2);

        cancel("parked");
        advance(100);

        ResponseEvent response = responses.readValue();
        assertThat(response.getRequestId()).isEqualTo("parked");
        assertThat(response.getAttempt()).isEqualTo(1);
        assertThat(response.getSequence()).isZero();
        assertThat(response.getTerminal().getStatus()).isEqualTo(ResponseStatus.CANCELLED);
        assertThat(responses.isEmpty()).isTrue();
        RoutingDecision decision = decisions.readValue();
        assertThat(decision.getRequestId()).isEqualTo("parked");
        assertThat(decision.getReason()).startsWith("cancelled");
        assertThat(metrics.parked()).isEqualTo(1);
        assertThat(metrics.registry().counter(RouterMetrics.REQUESTS_CANCELLED).count()).isEqualTo(1.0);

        report("east-1", "us-east", List.of(0, 1));
        advance(100);
        assertThat(dispatchEast.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("kept");
        assertThat(responses.isEmpty()).isTrue();
    }

    /** With more cancels kept than requests parked, each parked request's cancel is looked up instead of each cancel's request. */
    @Test
    void shouldAnswerAParkedRequestThatIsCancelledWhenCancelsOutnumberParkedRequests() {
        cancel("gone-1");
        cancel("gone-2");
        requests.pipeInput("parked", Records.request("parked", now()).build());
        assertThat(metrics.parked()).isEqualTo(1);

        cancel("parked");
        advance(100);

        ResponseEvent response = responses.readValue();
        assertThat(response.getRequestId()).isEqualTo("parked");
        assertThat(response.getTerminal().getStatus()).isEqualTo(ResponseStatus.CANCELLED);
        assertThat(metrics.parked()).isZero();
        report("east-1", "us-east", List.of(0, 1));
        advance(100);
        assertThat(dispatchEast.isEmpty()).isTrue();
    }

    @Test
    void shouldAnswerARequestCancelledBeforeItArrivesWithCancelledWithoutDispatch() {
        report("east-1", "us-east", List.of(0, 1));
        cancel("too-late");

        requests.pipeInput("too-late", Records.request("too-late", now()).build());
        requests.pipeInput("wanted", Records.request("wanted", now()).build());

        ResponseEvent response = responses.readValue();
        assertThat(response.getRequestId()).isEqualTo("too-late");
        assertThat(response.getAttempt()).isEqualTo(1);
        assertThat(response.getSequence()).isZero();
        assertThat(response.getTextDelta()).isNull();
        assertThat(response.getTerminal().getStatus()).isEqualTo(ResponseStatus.CANCELLED);
        assertThat(responses.isEmpty()).isTrue();
        assertThat(decisions.readValuesToList()).extracting(RoutingDecision::getRequestId, RoutingDecision::getOutcome)
                .containsExactly(tuple("too-late", DecisionOutcome.REJECTED), tuple("wanted", DecisionOutcome.DISPATCHED));
        assertThat(dispatchEast.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("wanted");
    }

    @Test
    void shouldRejectARequestWhoseRecordKeyIsNotItsIdWithoutClaimingTheId() {
        report("east-1", "us-east", List.of(0));

        requests.pipeInput("some-other-key", Records.request("req-k", now()).build());
        requests.pipeInput("req-k", Records.request("req-k", now()).build());

        ResponseEvent rejected = responses.readValue();
        assertThat(rejected.getRequestId()).isEqualTo("req-k");
        assertThat(rejected.getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
        assertThat(rejected.getTerminal().getError()).startsWith("key_mismatch").contains("must equal the request id");
        assertThat(rejected.getDuplicate()).as("marked so that no reader takes it as req-k's answer").isTrue();
        assertThat(rejected.getAttempt()).isZero();
        assertThat(dispatchEast.readValue().getRequest().getRequestId()).as("the id stays free for a rightly keyed record")
                .isEqualTo("req-k");
        assertThat(responses.isEmpty()).isTrue();
    }

    @Test
    void shouldRejectARequestWithANullKeyWithoutRunningItOrClaimingItsId() {
        report("east-1", "us-east", List.of(0));

        // a null key lands on whatever partition the producer picks, away from the id's own claim
        requests.pipeInput((String) null, Records.request("unkeyed", now()).build());

        assertThat(dispatchEast.isEmpty()).as("never run").isTrue();
        ResponseEvent rejected = responses.readValue();
        assertThat(rejected.getRequestId()).isEqualTo("unkeyed");
        assertThat(rejected.getDuplicate()).isTrue();
        assertThat(rejected.getAttempt()).isZero();
        assertThat(rejected.getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
        assertThat(rejected.getTerminal().getError()).startsWith("key_mismatch: record has no key")
                .contains("must equal the request id");
        assertThat(decisions.readValue().getOutcome()).isEqualTo(DecisionOutcome.REJECTED);
        assertThat(metrics.registry().counter(RouterMetrics.REQUESTS_REJECTED, "reason", "key_mismatch").count()).isEqualTo(1.0);

        requests.pipeInput("unkeyed", Records.request("unkeyed", now()).build());
        assertThat(dispatchEast.readValue().getRequest().getRequestId()).as("the id stays free for a rightly keyed record")
                .isEqualTo("unkeyed");
        assertThat(responses.isEmpty()).isTrue();
    }

    @Test
    void shouldRejectADuplicateArrivingWhileTheFirstRunsWithoutTouchingTheFirst() {
        report("east-1", "us-east", List.of(0));
        requests.pipeInput("dup", Records.request("dup", now()).build());
        assertThat(dispatchEast.readKeyValue().key).isEqualTo("dup");
        assertThat(decisions.readValue().getOutcome()).isEqualTo(DecisionOutcome.DISPATCHED);
        advance(1_000);

        requests.pipeInput("dup", Records.request("dup", now()).setPrompt("another prompt").setCustomId("second").build());

        assertDuplicateAnswered("dup", T0);
        assertThat(dispatchEast.isEmpty()).as("the duplicate is never run").isTrue();
        assertThat(metrics.registry().counter(RouterMetrics.REQUESTS_REJECTED, "reason", "duplicate_request_id").count())
                .isEqualTo(1.0);
    }

    @Test
    void shouldRejectADuplicateArrivingBeforeTheFirstIsDispatchedAndStillDispatchTheFirstOnce() {
        requests.pipeInput("early", Records.request("early", now()).build());
        assertThat(metrics.parked()).isEqualTo(1);

        requests.pipeInput("early", Records.request("early", now()).build());
        assertDuplicateAnswered("early", T0);

        report("east-1", "us-east", List.of(0));
        advance(100);
        assertThat(dispatchEast.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("early");
        assertThat(decisions.readValue().getOutcome()).isEqualTo(DecisionOutcome.DISPATCHED);
        assertThat(responses.isEmpty()).isTrue();
    }

    @Test
    void shouldRejectADuplicateOfARequestThatAlreadyHasItsTerminal() {
        report("east-1", "us-east", List.of(0));
        requests.pipeInput("done", Records.request("done", now()).setMaxTokens(0).build());
        ResponseEvent first = responses.readValue();
        assertThat(first.getTerminal().getError()).startsWith("max_tokens:");
        assertThat(first.getDuplicate()).isFalse();
        decisions.readValue();

        requests.pipeInput("done", Records.request("done", now()).build());

        assertDuplicateAnswered("done", T0);
        assertThat(dispatchEast.isEmpty()).isTrue();
    }

    @Test
    void shouldAnswerAnUndecodableRecordReusingAnAcceptedIdAsADuplicate() {
        report("east-1", "us-east", List.of(0));
        requests.pipeInput("taken", Records.request("taken", now()).build());
        dispatchEast.readKeyValue();
        decisions.readValue();

        rawRequests.pipeInput("taken".getBytes(StandardCharsets.UTF_8), "not avro".getBytes(StandardCharsets.UTF_8));

        assertThat(deadLetters.readRecordsToList()).hasSize(1);
        assertDuplicateAnswered("taken", T0);
    }

    @Test
    void shouldAcceptAnIdAgainOnceItsRetentionHasPassed() {
        report("east-1", "us-east", List.of(0));
        requests.pipeInput("old", Records.request("old", now()).build());
        dispatchEast.readKeyValue();
        decisions.readValue();

        advance(DEDUP_RETENTION_MS + 1);
        report("east-1", "us-east", List.of(0));
        requests.pipeInput("old", Records.request("old", now()).build());

        assertThat(dispatchEast.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("old");
        // the first one never got a result: the router gave up on it, ranked below any run of the new one
        List<ResponseEvent> answers = responses.readValuesToList();
        assertThat(answers).singleElement().satisfies(a -> {
            assertThat(a.getTerminal().getStatus()).isEqualTo(ResponseStatus.FAILED);
            assertThat(a.getAttempt()).isLessThan(RunAttempt.of(1, 1));
        });
    }

    private void assertDuplicateAnswered(String id, long firstAcceptedAt) {
        List<ResponseEvent> answers = responses.readValuesToList();
        assertThat(answers).hasSize(1);
        ResponseEvent answer = answers.get(0);
        assertThat(answer.getRequestId()).isEqualTo(id);
        assertThat(answer.getDuplicate()).isTrue();
        assertThat(answer.getAttempt()).isZero();
        assertThat(answer.getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
        assertThat(answer.getTerminal().getError()).startsWith("duplicate_request_id: duplicate request id")
                .contains(Long.toString(firstAcceptedAt));
        List<RoutingDecision> decided = decisions.readValuesToList();
        assertThat(decided).extracting(RoutingDecision::getRequestId, RoutingDecision::getOutcome)
                .containsExactly(tuple(id, DecisionOutcome.REJECTED));
        assertThat(decided.get(0).getReason()).startsWith("duplicate_request_id: duplicate request id");
    }

    @Test
    void shouldCancelOnAnUndecodableCancelWrittenBeforeTheRequestAndWithdrawOnATombstone() {
        report("east-1", "us-east", List.of(0, 1));
        rawCancellations.pipeInput("odd-cancel", new byte[] {7, 7, 7});
        rawCancellations.pipeInput("withdrawn", new byte[] {7});
        rawCancellations.pipeInput("withdrawn", (byte[]) null);

        requests.pipeInput("odd-cancel", Records.request("odd-cancel", now()).build());
        requests.pipeInput("withdrawn", Records.request("withdrawn", now()).build());

        assertThat(responses.readValuesToList()).extracting(ResponseEvent::getRequestId, e -> e.getTerminal().getStatus())
                .containsExactly(tuple("odd-cancel", ResponseStatus.CANCELLED));
        assertThat(dispatchEast.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly("withdrawn");
    }

    private void cancel(String requestId) {
        cancellations.pipeInput(requestId, CancelRequest.newBuilder().setRequestId(requestId).setReason("test")
                .setRequestedAtMs(now()).build());
    }

    static Stream<Arguments> refusedTelemetry() {
        return Stream.of(
                Arguments.of("garbage bytes", "undecodable", "east-1", null, "truncated"),
                Arguments.of("negative capacity", "implausible", "east-1",
                        (Consumer<WorkerTelemetry.Builder>) b -> b.setKvBlocksTotal(-5), "negative KV capacity"),
                Arguments.of("KV usage over 100 %", "implausible", "east-1",
                        (Consumer<WorkerTelemetry.Builder>) b -> b.setKvUsage(1.5), "outside [0, 1]"),
                Arguments.of("more KV blocks used than exist", "implausible", "east-1",
                        (Consumer<WorkerTelemetry.Builder>) b -> b.setKvBlocksUsed(28_001), "exceed total"),
                Arguments.of("negative queued prefill attention", "implausible", "east-1",
                        (Consumer<WorkerTelemetry.Builder>) b -> b.setQueuedPrefillAttention(-1), "negative request or token counts"),
                Arguments.of("no worker id key", "no_key", null, (Consumer<WorkerTelemetry.Builder>) b -> { }, "without a worker id"),
                Arguments.of("a key naming another worker", "implausible", "east-9",
                        (Consumer<WorkerTelemetry.Builder>) b -> { }, "differs from the record key"),
                Arguments.of("NaN KV usage", "implausible", "east-1",
                        (Consumer<WorkerTelemetry.Builder>) b -> b.setKvUsage(Double.NaN), "outside [0, 1]"),
                Arguments.of("NaN prefix hit rate", "implausible", "east-1",
                        (Consumer<WorkerTelemetry.Builder>) b -> b.setPrefixCacheHitRate(Double.NaN), "prefixCacheHitRate NaN"),
                Arguments.of("negative prefix hit rate", "implausible", "east-1",
                        (Consumer<WorkerTelemetry.Builder>) b -> b.setPrefixCacheHitRate(-0.5), "prefixCacheHitRate -0.5"),
                Arguments.of("infinite prefix hit rate", "implausible", "east-1",
                        (Consumer<WorkerTelemetry.Builder>) b -> b.setPrefixCacheHitRate(Double.POSITIVE_INFINITY), "prefixCacheHitRate"),
                Arguments.of("1e308 tokens per second", "implausible", "east-1",
                        (Consumer<WorkerTelemetry.Builder>) b -> b.setTokensPerSecond(1e308), "tokensPerSecond 1.0E308"),
                Arguments.of("Long.MAX queued prefill tokens", "implausible", "east-1",
                        (Consumer<WorkerTelemetry.Builder>) b -> b.setQueuedPrefillTokens(Long.MAX_VALUE), "queuedPrefillTokens"),
                Arguments.of("Integer.MAX waiting requests", "implausible", "east-1",
                        (Consumer<WorkerTelemetry.Builder>) b -> b.setWaitingRequests(Integer.MAX_VALUE), "waitingRequests"),
                Arguments.of("NaN recent TTFT", "implausible", "east-1",
                        (Consumer<WorkerTelemetry.Builder>) b -> b.setRecentTtftMs(Double.NaN), "recentTtftMs"),
                Arguments.of("a partition the dispatch topic cannot have", "implausible", "east-1",
                        (Consumer<WorkerTelemetry.Builder>) b -> b.setOwnedPartitions(List.of(0, 4_000_000)),
                        "partition 4000000 at or past router.dispatch.max.partitions"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedTelemetry")
    void shouldSkipCountAndDeadLetterRefusedTelemetryAndKeepRouting(String name, String kind, String key,
                                                                     Consumer<WorkerTelemetry.Builder> change, String reason) {
        byte[] refused = new byte[] {9, 9, 9};
        if (change != null) {
            WorkerTelemetry.Builder builder = Records.telemetry("east-1", "us-east", List.of(0), now());
            change.accept(builder);
            refused = serdes.valueSerde(WorkerTelemetry.class).serializer().serialize(config.topics().workerTelemetry().name(), builder.build());
        }

        rawTelemetry.pipeInput(key, refused);
        requests.pipeInput("r1", Records.request("r1", now()).build());
        assertThat(dispatchEast.isEmpty()).as("refused telemetry is never trusted").isTrue();

        assertThat(metrics.registry().counter(RouterMetrics.TELEMETRY_SKIPPED, "reason", kind).count()).isEqualTo(1.0);
        byte[] expected = refused;
        assertThat(globalDeadLetters).singleElement().satisfies(dead -> {
            assertThat(dead.value()).isEqualTo(expected);
            assertThat(header(dead, DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo("kvroute.worker-telemetry");
            assertThat(header(dead, DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("0");
            assertThat(header(dead, DeadLetterHeaders.ERROR_MESSAGE)).contains(reason);
        });
        assertThat(deadLetters.isEmpty()).isTrue();

        report("east-2", "us-east", List.of(0));
        advance(60);
        assertThat(dispatchEast.readValue().getWorkerId()).as("nothing else disturbed").isEqualTo("east-2");
    }

    @Test
    void shouldSkipGarbageAndImpossibleTelemetryWithoutStopping() {
        rawTelemetry.pipeInput("east-1", new byte[] {9, 9, 9});
        telemetry.pipeInput("east-2", Records.telemetry("east-2", "us-east", List.of(0), now()).setKvUsage(1.5).build());
        telemetry.pipeInput("east-3", Records.telemetry("east-3", "us-east", List.of(0), now()).setKvBlocksTotal(-5).build());
        requests.pipeInput("r1", Records.request("r1", now()).build());
        assertThat(dispatchEast.isEmpty()).isTrue();
        assertThat(metrics.registry().counter(RouterMetrics.TELEMETRY_SKIPPED, "reason", "undecodable").count()).isEqualTo(1.0);
        assertThat(metrics.registry().counter(RouterMetrics.TELEMETRY_SKIPPED, "reason", "implausible").count()).isEqualTo(2.0);

        report("east-4", "us-east", List.of(0));
        advance(60);

        assertThat(dispatchEast.readValue().getWorkerId()).isEqualTo("east-4");
    }

    @Test
    void shouldForgetAWorkerOnATombstone() {
        report("east-1", "us-east", List.of(0));
        rawTelemetry.pipeInput("east-1", (byte[]) null);
        requests.pipeInput("r1", Records.request("r1", now()).build());
        assertThat(dispatchEast.isEmpty()).isTrue();
    }

    @Test
    void shouldSpreadRequestsAcrossRegionsWhenAllowed() {
        report("east-1", "us-east", List.of(0));
        report("west-1", "eu-west", List.of(0));
        for (int i = 0; i < 6; i++) {
            requests.pipeInput("r" + i, Records.request("r" + i, now()).setPrefixBlockHashes(List.of(100L + i)).build());
        }
        assertThat(dispatchEast.readValuesToList()).hasSize(3);
        assertThat(dispatchWest.readValuesToList()).hasSize(3);
    }

    private static String header(TestRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
