package io.kvroute.router.topology;

import io.kvroute.platform.config.Settings;
import io.kvroute.router.config.RouterConfig;
import io.kvroute.router.errors.GlobalDeadLetters;
import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.router.routing.PeerPlacements;
import io.kvroute.router.topology.internal.RequestReader;
import io.kvroute.router.topology.internal.TopologyNames;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.v1.CancelRequest;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A TopologyTestDriver over the router's topology with regions us-east, eu-west and provider, and a wall clock to advance.
 * The router reads requests back (its in-flight entries keep no prompt) from what the harness sent: the test driver
 * keeps no input topic to read, so the harness's reader answers by request id, from the topic the router names.
 */
final class TopologyHarness implements AutoCloseable {
    static final long T0 = 1_800_000_000_000L;
    /** The router instance id the harness's router writes in its decisions. */
    static final String INSTANCE = "instance-a";

    final RouterConfig config;
    final Serdes serdes;
    final RouterMetrics metrics = new RouterMetrics(new SimpleMeterRegistry());
    /** Other router instances' placements, as its peer follower would queue them. */
    final PeerPlacements peers = new PeerPlacements(1_000);
    final TopologyTestDriver driver;
    final TestInputTopic<String, InferenceRequest> requests;
    final TestInputTopic<String, WorkerTelemetry> telemetry;
    final TestInputTopic<String, ResponseEvent> responsesIn;
    final TestOutputTopic<String, RoutingDecision> decisions;
    final TestOutputTopic<String, ResponseEvent> responses;
    final TestInputTopic<String, CancelRequest> cancellationsIn;
    /** The cancellations topic as bytes, for records no serializer would write. */
    final TestInputTopic<String, byte[]> cancellationsRawIn;
    final TestOutputTopic<String, CancelRequest> cancellations;
    private final Map<String, TestOutputTopic<String, DispatchedRequest>> dispatch = new HashMap<>();
    private final Map<String, InferenceRequest> sent = new java.util.concurrent.ConcurrentHashMap<>();
    /** Topics the router has asked to read requests back from. */
    final java.util.Set<String> readBackFrom = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** When set, reading a request back fails with this reason (a record gone with the topic's retention, say). */
    volatile String unreadable;
    private long elapsed;

    TopologyHarness(Path stateDir, Map<String, String> extra) {
        Map<String, String> settings = new HashMap<>();
        settings.put("bootstrap.servers", "unused:9092");
        settings.put("schema.registry.url", "mock://harness-" + UUID.randomUUID());
        settings.put("router.regions", "us-east,eu-west,provider");
        settings.put("router.models", "llama-3.1-8b:8192");
        settings.put("router.state.dir", stateDir.toString());
        settings.putAll(extra);
        config = RouterConfig.from(Settings.of(settings));
        serdes = new Serdes(config.serdeConfig());
        RequestReader reader = (source, requestId) -> {
            readBackFrom.add(source.topic());
            InferenceRequest request = sent.get(requestId);
            if (unreadable != null || request == null) {
                throw new RequestReader.UnreadableRequestException(unreadable != null ? unreadable : "never sent: " + requestId);
            }
            return request;
        };
        driver = new TopologyTestDriver(RouterTopology.build(config, serdes, metrics, GlobalDeadLetters.none(), peers, INSTANCE,
                reader), config.streamsProperties(), Instant.ofEpochMilli(T0));
        var topics = config.topics();
        requests = driver.createInputTopic(topics.requests().name(), new StringSerializer(),
                serdes.valueSerde(InferenceRequest.class).serializer());
        telemetry = driver.createInputTopic(topics.workerTelemetry().name(), new StringSerializer(),
                serdes.valueSerde(WorkerTelemetry.class).serializer());
        responsesIn = driver.createInputTopic(topics.responses().name(), new StringSerializer(),
                serdes.valueSerde(ResponseEvent.class).serializer());
        decisions = driver.createOutputTopic(topics.decisions().name(), new StringDeserializer(),
                serdes.valueSerde(RoutingDecision.class).deserializer());
        responses = driver.createOutputTopic(topics.responses().name(), new StringDeserializer(),
                serdes.valueSerde(ResponseEvent.class).deserializer());
        cancellationsIn = driver.createInputTopic(topics.cancellations().name(), new StringSerializer(),
                serdes.valueSerde(CancelRequest.class).serializer());
        cancellationsRawIn = driver.createInputTopic(topics.cancellations().name(), new StringSerializer(),
                new org.apache.kafka.common.serialization.ByteArraySerializer());
        cancellations = driver.createOutputTopic(topics.cancellations().name(), new StringDeserializer(),
                serdes.valueSerde(CancelRequest.class).deserializer());
        for (String region : config.regions()) {
            dispatch.put(region, driver.createOutputTopic(topics.dispatchTopic(region), new StringDeserializer(),
                    serdes.valueSerde(DispatchedRequest.class).deserializer()));
        }
    }

    long now() {
        return T0 + elapsed;
    }

    void advance(long ms) {
        elapsed += ms;
        driver.advanceWallClockTime(Duration.ofMillis(ms));
    }

    TestOutputTopic<String, DispatchedRequest> dispatched(String region) {
        return dispatch.get(region);
    }

    /** Ids dispatched to any region since the last read, in the order each region's topic holds them. */
    List<String> dispatchedIds(String region) {
        return dispatch.get(region).readValuesToList().stream().map(d -> d.getRequest().getRequestId()).toList();
    }

    /** The router's store of dispatched, unfinished requests. */
    KeyValueStore<String, DispatchedRequest> inFlight() {
        return driver.getKeyValueStore(TopologyNames.IN_FLIGHT_STORE);
    }

    void report(WorkerTelemetry.Builder worker) {
        telemetry.pipeInput(worker.getWorkerId(), worker.setObservedAtMs(now()).build());
    }

    void send(InferenceRequest request) {
        sent.put(request.getRequestId(), InferenceRequest.newBuilder(request).build());
        requests.pipeInput(request.getRequestId(), request);
    }

    /** A worker's COMPLETED terminal for {@code id}, as the responses topic carries it. */
    ResponseEvent completed(String id, int attempt, int promptTokens, int completionTokens) {
        return ResponseEvent.newBuilder()
                .setRequestId(id)
                .setAttempt(attempt)
                .setSequence(1)
                .setTerminal(TerminalResult.newBuilder()
                        .setStatus(ResponseStatus.COMPLETED)
                        .setUsage(Usage.newBuilder().setPromptTokens(promptTokens).setCompletionTokens(completionTokens).build())
                        .build())
                .setProducedAtMs(now())
                .build();
    }

    @Override
    public void close() {
        driver.close();
    }
}
