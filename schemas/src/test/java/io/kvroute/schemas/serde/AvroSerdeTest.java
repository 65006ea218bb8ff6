package io.kvroute.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.schemas.registry.InMemorySchemaRegistryClient;
import io.kvroute.schemas.v1.InferenceRequest;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class AvroSerdeTest {
    private final InMemorySchemaRegistryClient registry = new InMemorySchemaRegistryClient();
    private final AvroSerde<InferenceRequest> serde = new AvroSerde<>(InferenceRequest.class, registry);

    static InferenceRequest request() {
        return InferenceRequest.newBuilder()
                .setRequestId("r-1").setTenant("t").setModel("llama-3.1-8b").setPrompt("hello")
                .setMaxTokens(16).setPrefixBlockHashes(List.of(1L, 2L)).setPromptTokenEstimate(2)
                .setSubmittedAtMs(1_000L).build();
    }

    @Test
    void shouldRoundTripInConfluentWireFormat() {
        byte[] bytes = serde.serialize("kvroute.requests", request());

        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        assertThat(buffer.get()).isEqualTo((byte) 0);
        int id = buffer.getInt();
        assertThat(registry.getById(id)).isEqualTo(InferenceRequest.getClassSchema());
        assertThat(registry.lookup("kvroute.requests-value", InferenceRequest.getClassSchema())).isEqualTo(id);
        assertThat(serde.deserialize("kvroute.requests", bytes)).isEqualTo(request());
    }

    @Test
    void shouldNameTheWrongMagicByte() {
        byte[] bytes = serde.serialize("t", request());
        bytes[0] = 7;
        assertThatThrownBy(() -> serde.deserialize("t", bytes))
                .isInstanceOf(SerializationException.class).hasMessageContaining("unknown magic byte 0x07");
    }

    @Test
    void shouldNameAnUnknownSchemaId() {
        byte[] bytes = serde.serialize("t", request());
        ByteBuffer.wrap(bytes).put(0, (byte) 0).putInt(1, 4242);
        assertThatThrownBy(() -> serde.deserialize("t", bytes))
                .isInstanceOf(SerializationException.class).hasMessageContaining("unknown schema id 4242");
    }

    @Test
    void shouldRefuseATruncatedRecord() {
        byte[] bytes = serde.serialize("t", request());
        assertThatThrownBy(() -> serde.deserialize("t", Arrays.copyOf(bytes, bytes.length - 3)))
                .isInstanceOf(SerializationException.class).hasMessageContaining("truncated");
        assertThatThrownBy(() -> serde.deserialize("t", new byte[] {0, 0}))
                .isInstanceOf(SerializationException.class).hasMessageContaining("truncated");
    }

    @Test
    void shouldRefuseBytesThatAreNotAvro() {
        byte[] text = "{\"requestId\": \"x\"}".getBytes();
        assertThatThrownBy(() -> serde.deserialize("t", text))
                .isInstanceOf(SerializationException.class).hasMessageContaining("magic byte");
    }
}
