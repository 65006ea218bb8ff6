package io.kvroute.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.registry.InMemorySchemaRegistryClient;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.Priority;
import java.io.IOException;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/**
 * Clients, routers and workers are upgraded at different times: requests written by a client built
 * before {@code cacheSalt} must still decode (as no salt), and an older router or worker must read
 * a new client's requests, on the requests topic and inside dispatch records.
 */
class InferenceRequestEvolutionTest {
    private static final String TOPIC = "kvroute.requests";
    private static final String ADDED = "cacheSalt";

    private static Schema withoutAddedField(Schema current) {
        return Schema.createRecord(current.getName(), current.getDoc(), current.getNamespace(), false,
                current.getFields().stream().filter(f -> !ADDED.equals(f.name()))
                        .map(f -> new Schema.Field(f, f.schema())).toList());
    }

    @Test
    void shouldReadRequestsWrittenWithoutTheCacheSaltAsUnsalted() throws IOException {
        Schema current = InferenceRequest.getClassSchema();
        Schema before = withoutAddedField(current);
        assertThat(before.getFields()).hasSize(current.getFields().size() - 1);
        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(current, before).getType())
                .as("a new router reads an old client's requests").isEqualTo(SchemaCompatibilityType.COMPATIBLE);
        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(before, current).getType())
                .as("an old router reads a new client's requests").isEqualTo(SchemaCompatibilityType.COMPATIBLE);

        InMemorySchemaRegistryClient registry = new InMemorySchemaRegistryClient();
        int oldId = registry.register(TOPIC + "-value", before);
        GenericRecord old = new GenericData.Record(before);
        old.put("requestId", "r-1");
        old.put("customId", null);
        old.put("tenant", "acme");
        old.put("model", "llama-3.1-8b");
        old.put("prompt", "hello");
        old.put("messages", null);
        old.put("maxTokens", 8);
        old.put("sampling", null);
        old.put("priority", new GenericData.EnumSymbol(before.getField("priority").schema(), "BATCH"));
        old.put("deadlineMs", null);
        old.put("allowedRegions", List.of());
        old.put("prefixBlockHashes", List.of(7L, 11L));
        old.put("prefixBlockTokens", 64);
        old.put("promptTokenEstimate", 2);
        old.put("submittedAtMs", 1_000L);

        InferenceRequest read = new AvroSerde<>(InferenceRequest.class, registry).deserialize(TOPIC, ConfluentBytes.of(oldId, old));

        assertThat(read.getRequestId()).isEqualTo("r-1");
        assertThat(read.getPrefixBlockHashes()).containsExactly(7L, 11L);
        assertThat(read.getPriority()).isEqualTo(Priority.BATCH);
        assertThat(read.getCacheSalt()).as("no salt asked for").isNull();
    }

    @Test
    void shouldReadDispatchRecordsAcrossTheCacheSaltChange() {
        Schema current = DispatchedRequest.getClassSchema();
        Schema oldRequest = withoutAddedField(InferenceRequest.getClassSchema());
        Schema before = Schema.createRecord(current.getName(), current.getDoc(), current.getNamespace(), false,
                current.getFields().stream()
                        .map(f -> new Schema.Field(f, "request".equals(f.name()) ? oldRequest : f.schema())).toList());

        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(current, before).getType())
                .as("a new worker reads an old router's dispatch records").isEqualTo(SchemaCompatibilityType.COMPATIBLE);
        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(before, current).getType())
                .as("an old worker reads a new router's dispatch records").isEqualTo(SchemaCompatibilityType.COMPATIBLE);
    }
}
