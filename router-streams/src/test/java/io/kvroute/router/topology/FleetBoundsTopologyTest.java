package io.kvroute.router.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.platform.config.Settings;
import io.kvroute.router.config.RouterConfig;
import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.WorkerTelemetry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Telemetry of more workers than {@code router.telemetry.max.workers} is refused: worker ids come from records. */
class FleetBoundsTopologyTest {
    private static final long T0 = 1_800_000_000_000L;

    @TempDir
    Path stateDir;
    private TopologyTestDriver driver;

    @AfterEach
    void close() {
        driver.close();
    }

    @Test
    void shouldRefuseTelemetryOfANewWorkerPastTheLimitAndKeepTheKnownOnes() {
        Map<String, String> settings = new HashMap<>();
        settings.put("bootstrap.servers", "unused:9092");
        settings.put("schema.registry.url", "mock://fleet-bounds-" + UUID.randomUUID());
        settings.put("router.regions", "us-east");
        settings.put("router.models", "llama-3.1-8b:8192");
        settings.put("router.state.dir", stateDir.toString());
        settings.put("router.telemetry.max.workers", "2");
        RouterConfig config = RouterConfig.from(Settings.of(settings));
        Serdes serdes = new Serdes(config.serdeConfig());
        RouterMetrics metrics = new RouterMetrics(new SimpleMeterRegistry());
        driver = new TopologyTestDriver(RouterTopology.build(config, serdes, metrics, (key, value, headers) -> { }),
                config.streamsProperties(), Instant.ofEpochMilli(T0));
        KvrouteTopics topics = config.topics();
        TestInputTopic<String, WorkerTelemetry> telemetry = driver.createInputTopic(topics.workerTelemetry().name(),
                new StringSerializer(), serdes.valueSerde(WorkerTelemetry.class).serializer());

        telemetry.pipeInput("east-1", Records.telemetry("east-1", "us-east", List.of(0), T0).build());
        telemetry.pipeInput("east-2", Records.telemetry("east-2", "us-east", List.of(1), T0).build());
        telemetry.pipeInput("forged-3", Records.telemetry("forged-3", "us-east", List.of(2), T0).build());
        telemetry.pipeInput("east-1", Records.telemetry("east-1", "us-east", List.of(0), T0).build());

        assertThat(metrics.registry().counter(RouterMetrics.TELEMETRY_SKIPPED, "reason", "too_many_workers").count())
                .as("only the third worker is refused; a known one still reports").isEqualTo(1.0);
        driver.createInputTopic(topics.requests().name(), new StringSerializer(), serdes.valueSerde(InferenceRequest.class).serializer())
                .pipeInput("r-1", Records.request("r-1", T0).build());
        var dispatched = driver.createOutputTopic(topics.dispatchTopic("us-east"), new StringDeserializer(),
                serdes.valueSerde(DispatchedRequest.class).deserializer()).readValue();
        assertThat(dispatched.getWorkerId()).isIn("east-1", "east-2");
    }
}
