package io.kvroute.router.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.platform.config.Settings;
import io.kvroute.router.config.RouterConfig;
import io.kvroute.router.errors.GlobalDeadLetters;
import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.DeadLetterHeaders;
import io.kvroute.schemas.topics.DecisionComponents;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.KvCacheEvent;
import io.kvroute.schemas.v1.RoutingDecision;
import io.kvroute.schemas.v1.WorkerTelemetry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The workers' KV events reach the policies through the global kv-events processor. */
class KvEventTopologyTest {
    private static final long T0 = 1_800_000_000_000L;
    private static final List<Long> PREFIX = List.of(11L, 12L, 13L);

    @TempDir
    Path stateDir;

    private long elapsed;
    private TopologyTestDriver driver;
    private RouterMetrics metrics;
    private TestInputTopic<String, InferenceRequest> requests;
    private TestInputTopic<String, WorkerTelemetry> telemetry;
    private TestInputTopic<String, KvCacheEvent> kvEvents;
    private TestInputTopic<String, byte[]> rawKvEvents;
    private TestOutputTopic<String, DispatchedRequest> dispatchEast;
    private TestOutputTopic<String, RoutingDecision> decisions;
    private final List<String> deadLetterReasons = new ArrayList<>();

    private void start(String policy) {
        Map<String, String> settings = new HashMap<>();
        settings.put("bootstrap.servers", "unused:9092");
        settings.put("schema.registry.url", "mock://kv-events-topology-" + UUID.randomUUID());
        settings.put("router.regions", "us-east");
        settings.put("router.policy", policy);
        settings.put("router.state.dir", stateDir.toString());
        RouterConfig config = RouterConfig.from(Settings.of(settings));
        Serdes serdes = new Serdes(config.serdeConfig());
        metrics = new RouterMetrics(new SimpleMeterRegistry());
        GlobalDeadLetters capture = (key, value, headers) -> deadLetterReasons.add(
                new String(headers.lastHeader(DeadLetterHeaders.SOURCE_TOPIC).value(), StandardCharsets.UTF_8) + ": "
                        + new String(headers.lastHeader(DeadLetterHeaders.ERROR_MESSAGE).value(), StandardCharsets.UTF_8));
        driver = new TopologyTestDriver(RouterTopology.build(config, serdes, metrics, capture), config.streamsProperties(),
                Instant.ofEpochMilli(T0));
        var topics = config.topics();
        requests = driver.createInputTopic(topics.requests().name(), new StringSerializer(),
                serdes.valueSerde(InferenceRequest.class).serializer());
        telemetry = driver.createInputTopic(topics.workerTelemetry().name(), new StringSerializer(),
                serdes.valueSerde(WorkerTelemetry.class).serializer());
        kvEvents = driver.createInputTopic(topics.kvEvents().name(), new StringSerializer(),
                serdes.valueSerde(KvCacheEvent.class).serializer());
        rawKvEvents = driver.createInputTopic(topics.kvEvents().name(), new StringSerializer(), new ByteArraySerializer());
        dispatchEast = driver.createOutputTopic(topics.dispatchTopic("us-east"), new StringDeserializer(),
                serdes.valueSerde(DispatchedRequest.class).deserializer());
        decisions = driver.createOutputTopic(topics.decisions().name(), new StringDeserializer(),
                serdes.valueSerde(RoutingDecision.class).deserializer());
        report();
    }

    /** Fresh, equal telemetry for both workers, observed after every earlier placement: no pending load remains. */
    private void report() {
        elapsed += 1_000;
        driver.advanceWallClockTime(Duration.ofMillis(1_000));
        telemetry.pipeInput("east-a", Records.telemetry("east-a", "us-east", List.of(0), T0 + elapsed).build());
        telemetry.pipeInput("east-b", Records.telemetry("east-b", "us-east", List.of(1), T0 + elapsed).build());
    }

    @AfterEach
    void closeDriver() {
        if (driver != null) {
            driver.close();
        }
    }

    private DispatchedRequest route(String id) {
        requests.pipeInput(id, Records.request(id, T0 + elapsed).setPrefixBlockHashes(PREFIX).build());
        DispatchedRequest dispatched = dispatchEast.readValue();
        report();
        return dispatched;
    }

    @ParameterizedTest
    @ValueSource(strings = {"dynamo-kv", "kvroute"})
    void shouldPlaceOnTheWorkerWhoseKvEventsHoldThePrefix(String policy) {
        start(policy);
        kvEvents.pipeInput("east-b", Records.kvEvent("east-b", "us-east", 0, PREFIX, T0).build());

        DispatchedRequest dispatched = route("after-events");
        assertThat(dispatched.getWorkerId()).isEqualTo("east-b");
        assertThat(dispatched.getPartition()).isEqualTo(1);
        assertThat(dispatched.getMatchedPrefixBlocks()).isEqualTo(3);
        RoutingDecision decision = decisions.readValue();
        assertThat(decision.getPolicy()).isEqualTo(policy);
        assertThat(decision.getMatchedPrefixBlocks()).isEqualTo(3);
        KeyValueStore<String, Long> sequences = driver.getKeyValueStore(RouterTopology.KV_EVENTS_STORE);
        assertThat(sequences.get("east-b")).isZero();
        assertThat(metrics.registry().counter(RouterMetrics.KV_EVENTS_APPLIED, RouterMetrics.TAG_OUTCOME, "applied").count())
                .isEqualTo(1.0);
    }

    @Test
    void shouldChargeThePrefixAWorkerReportedInHostMemoryOnlyTheCopyBack() {
        start("kvroute");
        kvEvents.pipeInput("east-a", Records.kvEvent("east-a", "us-east", 0, PREFIX, T0).build());
        kvEvents.pipeInput("east-b", Records.kvEvent("east-b", "us-east", 0, PREFIX, T0).build());
        // equal but for east-a's tier: the tie would go to east-a
        kvEvents.pipeInput("east-a", Records.kvEvent("east-a", "us-east", 1, List.of(), T0).setOffloadedBlockHashes(PREFIX).build());

        DispatchedRequest dispatched = route("tiers");

        assertThat(dispatched.getWorkerId()).isEqualTo("east-b");
        assertThat(dispatched.getMatchedPrefixBlocks()).isEqualTo(3);
        RoutingDecision decision = decisions.readValue();
        Map<String, Double> hostLoadByWorker = new HashMap<>();
        decision.getTopCandidates().forEach(c -> hostLoadByWorker.put(c.getWorkerId(), DecisionComponents.of(decision, c).get("host_load_ms")));
        assertThat(hostLoadByWorker.get("east-a")).isPositive();
        assertThat(hostLoadByWorker.get("east-b")).isZero();
    }

    @Test
    void shouldSkipGarbageKvEventsAndKeepApplyingTheNextOnes() {
        start("dynamo-kv");
        rawKvEvents.pipeInput("east-b", "not avro".getBytes(StandardCharsets.UTF_8));
        rawKvEvents.pipeInput((String) null, new byte[] {0, 0, 0, 0, 1});
        kvEvents.pipeInput("east-a", Records.kvEvent("east-b", "us-east", 0, PREFIX, T0).build());
        kvEvents.pipeInput("east-b", Records.kvEvent("east-b", "us-east", 0, PREFIX, T0).build());

        assertThat(route("r1").getWorkerId()).isEqualTo("east-b");
        assertThat(metrics.registry().counter(RouterMetrics.KV_EVENTS_SKIPPED, RouterMetrics.TAG_REASON, "undecodable").count())
                .isEqualTo(1.0);
        assertThat(metrics.registry().counter(RouterMetrics.KV_EVENTS_SKIPPED, RouterMetrics.TAG_REASON, "no_key").count())
                .isEqualTo(1.0);
        assertThat(metrics.registry().counter(RouterMetrics.KV_EVENTS_SKIPPED, RouterMetrics.TAG_REASON, "key_mismatch").count())
                .isEqualTo(1.0);
        assertThat(deadLetterReasons).hasSize(3).allSatisfy(reason -> assertThat(reason).startsWith("kvroute.kv-events: "));
        assertThat(deadLetterReasons.get(0)).contains("magic byte");
        assertThat(deadLetterReasons.get(1)).contains("without a worker id");
        assertThat(deadLetterReasons.get(2)).contains("naming worker east-b");
    }

    @Test
    void shouldForgetAWorkersBlocksAfterAGapOrATombstone() {
        start("dynamo-kv");
        kvEvents.pipeInput("east-b", Records.kvEvent("east-b", "us-east", 0, PREFIX, T0).build());
        kvEvents.pipeInput("east-b", Records.kvEvent("east-b", "us-east", 5, List.of(99L), T0).build());
        assertThat(route("after-gap").getWorkerId()).isEqualTo("east-a");
        assertThat(metrics.registry().counter(RouterMetrics.KV_EVENTS_APPLIED, RouterMetrics.TAG_OUTCOME, "reset_after_gap").count())
                .isEqualTo(1.0);

        kvEvents.pipeInput("east-b", Records.kvEvent("east-b", "us-east", 6, PREFIX, T0).build());
        assertThat(route("in-sequence-again").getWorkerId()).isEqualTo("east-b");

        kvEvents.pipeInput("east-b", (KvCacheEvent) null);
        assertThat(route("after-tombstone").getWorkerId()).isEqualTo("east-a");
    }
}
