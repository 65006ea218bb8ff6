package io.kvroute.router.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.platform.config.Settings;
import io.kvroute.router.config.RouterConfig;
import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.v1.CancelRequest;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.RoutingDecision;
import io.kvroute.schemas.v1.TerminalResult;
import io.kvroute.schemas.v1.Usage;
import io.kvroute.schemas.v1.WorkerTelemetry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Re-placement of dispatched, unfinished requests when their region goes silent. */
class ReplacementTopologyTest {
    private static final long T0 = 1_800_000_000_000L;
    private static final long PATIENCE_MS = 10_000;

    @TempDir
    Path stateDir;

    private RouterMetrics metrics;
    private TopologyTestDriver driver;
    private TestInputTopic<String, InferenceRequest> requests;
    private TestInputTopic<String, WorkerTelemetry> telemetry;
    private TestInputTopic<String, ResponseEvent> responsesIn;
    private TestInputTopic<String, CancelRequest> cancellationsIn;
    private TestOutputTopic<String, DispatchedRequest> dispatchEast;
    private TestOutputTopic<String, DispatchedRequest> dispatchWest;
    private TestOutputTopic<String, RoutingDecision> decisions;
    private TestOutputTopic<String, ResponseEvent> responses;
    private TestOutputTopic<String, CancelRequest> cancellations;
    private long elapsed;

    @BeforeEach
    void startDriver() {
        RouterConfig config = RouterConfig.from(Settings.of(Map.of(
                "bootstrap.servers", "unused:9092",
                "schema.registry.url", "mock://replacement-" + UUID.randomUUID(),
                "router.regions", "us-east,eu-west",
                "router.models", "llama-3.1-8b:8192",
                "router.state.dir", stateDir.toString(),
                "router.replace.patience.ms", Long.toString(PATIENCE_MS))));
        Serdes serdes = new Serdes(config.serdeConfig());
        metrics = new RouterMetrics(new SimpleMeterRegistry());
        driver = new TopologyTestDriver(RouterTopology.build(config, serdes, metrics), config.streamsProperties(),
                Instant.ofEpochMilli(T0));
        var topics = config.topics();
        requests = driver.createInputTopic(topics.requests().name(), new StringSerializer(),
                serdes.valueSerde(InferenceRequest.class).serializer());
        telemetry = driver.createInputTopic(topics.workerTelemetry().name(), new StringSerializer(),
                serdes.valueSerde(WorkerTelemetry.class).serializer());
        responsesIn = driver.createInputTopic(topics.responses().name(), new StringSerializer(),
                serdes.valueSerde(ResponseEvent.class).serializer());
        cancellationsIn = driver.createInputTopic(topics.cancellations().name(), new StringSerializer(),
                serdes.valueSerde(CancelRequest.class).serializer());
        dispatchEast = driver.createOutputTopic(topics.dispatchTopic("us-east"), new StringDeserializer(),
                serdes.valueSerde(DispatchedRequest.class).deserializer());
        dispatchWest = driver.createOutputTopic(topics.dispatchTopic("eu-west"), new StringDeserializer(),
                serdes.valueSerde(DispatchedRequest.class).deserializer());
        decisions = driver.createOutputTopic(topics.decisions().name(), new StringDeserializer(),
                serdes.valueSerde(RoutingDecision.class).deserializer());
        responses = driver.createOutputTopic(topics.responses().name(), new StringDeserializer(),
                serdes.valueSerde(ResponseEvent.class).deserializer());
        cancellations = driver.createOutputTopic(topics.cancellations().name(), new StringDeserializer(),
                serdes.valueSerde(CancelRequest.class).deserializer());
    }

    @AfterEach
    void closeDriver() {
        driver.close();
    }

    private long now() {
        return T0 + elapsed;
    }

    /** Advances the wall clock in 1 s steps, the listed workers reporting at each step. */
    private void advanceReporting(long ms, String... reporting) {
        for (long step = 0; step < ms; step += 1_000) {
            elapsed += 1_000;
            for (String worker : reporting) {
                String region = worker.startsWith("east") ? "us-east" : "eu-west";
                telemetry.pipeInput(worker, Records.telemetry(worker, region, List.of(0), now()).build());
            }
            driver.advanceWallClockTime(Duration.ofMillis(1_000));
        }
    }

    /** Dispatches {@code id} to us-east while only us-east reports, then brings eu-west up. */
    private void dispatchToEastThenStartWest(InferenceRequest request) {
        telemetry.pipeInput("east-1", Records.telemetry("east-1", "us-east", List.of(0), now()).build());
        requests.pipeInput(request.getRequestId(), request);
        assertThat(dispatchEast.readValue().getAttempt()).isEqualTo(1);
        assertThat(decisions.readValue().getOutcome()).isEqualTo(DecisionOutcome.DISPATCHED);
        telemetry.pipeInput("west-1", Records.telemetry("west-1", "eu-west", List.of(0), now()).build());
    }

    @Test
    void shouldReplaceAnUnfinishedRequestOfASilentRegionWithTheNextAttemptAndVoidTheOldOne() {
        dispatchToEastThenStartWest(Records.request("req-1", now()).build());

        advanceReporting(PATIENCE_MS - 2_000, "west-1");
        assertThat(dispatchWest.isEmpty()).as("not yet past the patience").isTrue();

        advanceReporting(4_000, "west-1");

        DispatchedRequest again = dispatchWest.readValue();
        assertThat(again.getAttempt()).isEqualTo(2);
        assertThat(again.getRegion()).isEqualTo("eu-west");
        assertThat(again.getRequest().getRequestId()).isEqualTo("req-1");
        CancelRequest marker = cancellations.readValue();
        assertThat(marker.getRequestId()).isEqualTo("req-1");
        assertThat(marker.getSupersedesBelowAttempt()).isEqualTo(2);
        RoutingDecision decision = decisions.readValue();
        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.DISPATCHED);
        assertThat(decision.getAttempt()).isEqualTo(2);
        assertThat(decision.getReason()).startsWith("re-placed from us-east (region us-east silent for");
        assertThat(responses.isEmpty()).isTrue();
        assertThat(metrics.registry().counter(RouterMetrics.REQUESTS_REPLACED, "region", "us-east").count()).isEqualTo(1.0);

        advanceReporting(PATIENCE_MS * 2, "west-1");
        assertThat(dispatchWest.isEmpty()).as("re-placed once, not again while its new region reports").isTrue();
        assertThat(dispatchEast.isEmpty()).isTrue();
    }

    @Test
    void shouldNotReplaceARequestWhoseResultIsOnTheResponsesTopic() {
        dispatchToEastThenStartWest(Records.request("req-1", now()).build());
        responsesIn.pipeInput("req-1", terminal("req-1", (1 << 16) | 1));

        advanceReporting(PATIENCE_MS * 2, "west-1");

        assertThat(dispatchWest.isEmpty()).isTrue();
        assertThat(cancellations.isEmpty()).isTrue();
    }

    @Test
    void shouldNotReplaceWhileItsRegionKeepsReporting() {
        dispatchToEastThenStartWest(Records.request("req-1", now()).build());

        advanceReporting(PATIENCE_MS * 3, "east-1", "west-1");

        assertThat(dispatchWest.isEmpty()).isTrue();
        assertThat(cancellations.isEmpty()).isTrue();
    }

    @Test
    void shouldKeepARequestAllowedOnlyInTheSilentRegionWaitingThenExpireItOutrankingTheOldRun() {
        long deadline = now() + PATIENCE_MS * 3;
        dispatchToEastThenStartWest(Records.request("req-1", now()).setAllowedRegions(List.of("us-east"))
                .setDeadlineMs(deadline).build());

        advanceReporting(PATIENCE_MS * 2, "west-1");
        assertThat(dispatchWest.isEmpty()).as("never outside its allowed regions").isTrue();
        assertThat(responses.isEmpty()).isTrue();

        advanceReporting(PATIENCE_MS * 2, "west-1");

        ResponseEvent expired = responses.readValue();
        assertThat(expired.getTerminal().getStatus()).isEqualTo(ResponseStatus.EXPIRED);
        assertThat(expired.getAttempt()).isEqualTo(2 << 16);
        assertThat(cancellations.readValue().getSupersedesBelowAttempt()).isEqualTo(2);
        assertThat(dispatchWest.isEmpty()).isTrue();
        assertThat(dispatchEast.isEmpty()).isTrue();
    }

    @Test
    void shouldNotTakeARePlacementMarkerForACancel() {
        telemetry.pipeInput("east-1", Records.telemetry("east-1", "us-east", List.of(0), now()).build());
        cancellationsIn.pipeInput("req-1", CancelRequest.newBuilder().setRequestId("req-1").setRequestedAtMs(now())
                .setSupersedesBelowAttempt(2).build());

        requests.pipeInput("req-1", Records.request("req-1", now()).build());

        assertThat(dispatchEast.readValue().getRequest().getRequestId()).isEqualTo("req-1");
        assertThat(responses.isEmpty()).isTrue();
    }

    private ResponseEvent terminal(String id, int attempt) {
        return ResponseEvent.newBuilder()
                .setRequestId(id)
                .setAttempt(attempt)
                .setSequence(3)
                .setTerminal(TerminalResult.newBuilder()
                        .setStatus(ResponseStatus.COMPLETED)
                        .setUsage(Usage.newBuilder().setPromptTokens(150).setCompletionTokens(3).setCachedTokens(0).build())
                        .build())
                .setProducedAtMs(now())
                .build();
    }
}
