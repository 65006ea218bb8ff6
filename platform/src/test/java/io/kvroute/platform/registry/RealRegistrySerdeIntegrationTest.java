package io.kvroute.platform.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.platform.testing.TestRegistry;
import io.kvroute.schemas.registry.HttpSchemaRegistryClient;
import io.kvroute.schemas.registry.SchemaRegistryException;
import io.kvroute.schemas.registry.UnknownSchemaIdException;
import io.kvroute.schemas.serde.AvroSerde;
import io.kvroute.schemas.v1.WorkerStatus;
import io.kvroute.schemas.v1.WorkerTelemetry;
import java.nio.ByteBuffer;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/** The serde and registry client against a real registry speaking the Confluent API (Apicurio). */
class RealRegistrySerdeIntegrationTest {

    @Test
    void shouldRegisterUnderTheTopicSubjectAndReadBackById() {
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(TestRegistry.url());
        AvroSerde<WorkerTelemetry> serde = new AvroSerde<>(WorkerTelemetry.class, client);
        WorkerTelemetry telemetry = WorkerTelemetry.newBuilder().setWorkerId("w1").setRegion("us-east")
                .setKvBlocksTotal(100).setKvBlocksUsed(10).setKvUsage(0.1).setRunningRequests(1)
                .setWaitingRequests(0).setStatus(WorkerStatus.HEALTHY).setObservedAtMs(5).build();

        byte[] bytes = serde.serialize("it-serde.worker-telemetry", telemetry);
        int id = ByteBuffer.wrap(bytes, 1, 4).getInt();

        HttpSchemaRegistryClient freshClient = new HttpSchemaRegistryClient(TestRegistry.url());
        assertThat(freshClient.getById(id)).isEqualTo(WorkerTelemetry.getClassSchema());
        assertThat(freshClient.lookup("it-serde.worker-telemetry-value", WorkerTelemetry.getClassSchema())).isEqualTo(id);
        assertThat(new AvroSerde<>(WorkerTelemetry.class, freshClient).deserialize("it-serde.worker-telemetry", bytes))
                .isEqualTo(telemetry);
    }

    @Test
    void shouldReportAnUnknownIdAndARefusedSchema() {
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(TestRegistry.url());
        assertThatThrownBy(() -> client.getById(987_654)).isInstanceOf(UnknownSchemaIdException.class);

        Schema v1 = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}");
        Schema incompatible = new Schema.Parser().parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"string\"}]}");
        client.register("it-compat-value", v1);
        setBackwardCompatibility("it-compat-value");
        assertThatThrownBy(() -> client.register("it-compat-value", incompatible))
                .isInstanceOf(SchemaRegistryException.class).hasMessageContaining("409");
    }

    private static void setBackwardCompatibility(String subject) {
        try {
            java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest
                    .newBuilder(java.net.URI.create(TestRegistry.url() + "/config/" + subject))
                    .header("Content-Type", "application/json")
                    .PUT(java.net.http.HttpRequest.BodyPublishers.ofString("{\"compatibility\":\"BACKWARD\"}")).build(),
                    java.net.http.HttpResponse.BodyHandlers.discarding());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
