package io.kvroute.router.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.platform.config.Settings;
import io.kvroute.router.config.RouterConfig;
import io.kvroute.schemas.registry.InMemorySchemaRegistryClient;
import io.kvroute.schemas.registry.SchemaRegistryClient;
import io.kvroute.schemas.registry.SchemaRegistryException;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.v1.InferenceRequest;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RegistryOutageTest {

    /** Registers fine, but cannot fetch schemas by id: the registry went away after the producer wrote. */
    private static final class UnreachableOnRead implements SchemaRegistryClient {
        private final InMemorySchemaRegistryClient delegate = new InMemorySchemaRegistryClient();

        @Override
        public int register(String subject, Schema schema) {
            return delegate.register(subject, schema);
        }

        @Override
        public int lookup(String subject, Schema schema) {
            return delegate.lookup(subject, schema);
        }

        @Override
        public Schema getById(int id) {
            throw new SchemaRegistryException("schema registry at http://registry:8081 is not reachable");
        }
    }

    @Test
    void shouldNotDeadLetterValidRecordsWhileTheRegistryIsUnreachable(@TempDir Path stateDir) {
        RouterConfig config = RouterConfig.from(Settings.of(Map.of("bootstrap.servers", "unused:9092",
                "schema.registry.url", "mock://outage", "router.regions", "us-east", "router.state.dir", stateDir.toString())));
        Serdes serdes = new Serdes(new UnreachableOnRead());
        try (TopologyTestDriver driver = new TopologyTestDriver(RouterTopology.build(config, serdes),
                config.streamsProperties(), Instant.ofEpochMilli(1_800_000_000_000L))) {
            var requests = driver.createInputTopic(config.topics().requests().name(), new StringSerializer(),
                    serdes.valueSerde(InferenceRequest.class).serializer());
            TestOutputTopic<byte[], byte[]> dlq = driver.createOutputTopic(config.topics().deadLetters().name(),
                    new ByteArrayDeserializer(), new ByteArrayDeserializer());

            assertThatThrownBy(() -> requests.pipeInput("r1", Records.request("r1", 1_800_000_000_000L).build()))
                    .hasStackTraceContaining("not reachable");
            assertThat(dlq.isEmpty()).isTrue();
        }
    }
}
