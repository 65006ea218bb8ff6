package io.kvroute.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.schemas.registry.InMemorySchemaRegistryClient;
import io.kvroute.schemas.v1.CancelRequest;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.KvCacheEvent;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.RoutingDecision;
import io.kvroute.schemas.v1.WorkerTelemetry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.avro.util.RandomData;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

    /**
     * The serde writes with the code Avro generated for each class; random records of every top-level type (unions,
     * arrays, maps, enums and nested records filled at random) come out byte for byte as Avro's schema-driven writer
     * writes the same record.
     */
    @ParameterizedTest
    @ValueSource(classes = {InferenceRequest.class, DispatchedRequest.class, RoutingDecision.class, ResponseEvent.class,
        WorkerTelemetry.class, KvCacheEvent.class, CancelRequest.class})
    <T extends SpecificRecord> void shouldWriteTheSameBytesAsTheSchemaDrivenWriter(Class<T> type) throws IOException {
        AvroSerde<T> typed = new AvroSerde<>(type, registry);
        Schema schema = typed.schema();
        SpecificDatumReader<T> reader = new SpecificDatumReader<>(type);
        SpecificData schemaDriven = new SpecificData();
        assertThat(schemaDriven.useCustomCoders()).isFalse();
        for (Object random : new RandomData(schema, 200, 42L)) {
            T record = reader.read(null, DecoderFactory.get().binaryDecoder(encode(new GenericDatumWriter<>(schema), random), null));

            byte[] written = typed.serialize("t", record);

            assertThat(Arrays.copyOfRange(written, 5, written.length))
                    .isEqualTo(encode(new SpecificDatumWriter<>(schema, schemaDriven), record));
        }
    }

    private static <D> byte[] encode(DatumWriter<D> writer, Object datum) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        @SuppressWarnings("unchecked") D typed = (D) datum;
        writer.write(typed, encoder);
        encoder.flush();
        return out.toByteArray();
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

    @Test
    void shouldWriteEachRecordWholeAndAloneWhenOneThreadReusesItsBuffer() {
        InferenceRequest large = InferenceRequest.newBuilder(request()).setRequestId("r-large").setPrompt("x".repeat(3_000_000)).build();
        InferenceRequest small = request();

        byte[] first = serde.serialize("t", small);
        byte[] big = serde.serialize("t", large);
        byte[] again = serde.serialize("t", small);

        assertThat(serde.deserialize("t", big)).isEqualTo(large);
        assertThat(again).as("nothing of the larger record before it").isEqualTo(first);
        assertThat(serde.deserialize("t", again)).isEqualTo(small);
    }

    @Test
    void shouldWriteTheNextRecordWholeAfterOneThatFailedHalfway() {
        InferenceRequest missingModel = InferenceRequest.newBuilder(request()).build();
        missingModel.setModel(null);
        byte[] before = serde.serialize("t", request());

        assertThatThrownBy(() -> serde.serialize("t", missingModel)).isInstanceOf(SerializationException.class);

        assertThat(serde.serialize("t", request())).isEqualTo(before);
    }

    @Test
    void shouldSerializeFromSeveralThreadsAtOnce() throws Exception {
        List<InferenceRequest> requests = java.util.stream.IntStream.range(0, 200)
                .mapToObj(i -> InferenceRequest.newBuilder(request()).setRequestId("r-" + i).setPrompt("p".repeat(i * 37)).build())
                .toList();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<Boolean>> checks = new java.util.ArrayList<>();
            for (InferenceRequest r : requests) {
                checks.add(pool.submit(() -> serde.deserialize("t", serde.serialize("t", r)).equals(r)));
            }
            for (java.util.concurrent.Future<Boolean> check : checks) {
                assertThat(check.get()).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
