package io.kvroute.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.registry.InMemorySchemaRegistryClient;
import io.kvroute.schemas.v1.WorkerStatus;
import io.kvroute.schemas.v1.WorkerTelemetry;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/**
 * Workers and routers are upgraded at different times: a new router must read telemetry from a worker built before
 * {@code queuedPrefillAttention} (as not reported, 0), and an old router must read a new worker's.
 */
class WorkerTelemetryEvolutionTest {
    private static final String TOPIC = "kvroute.worker-telemetry";

    /** Fields added after the first release of the schema: an older worker writes none of them. */
    private static final Set<String> ADDED = Set.of("queuedPrefillAttention", "pool", "owedPrefillTokens", "owedPrefillRequests",
            "decodingContextTokens", "recentTtftMs", "decodeMsPerToken");

    @Test
    void shouldReadTelemetryWrittenWithoutTheFieldsAddedSinceAsNotReported() throws IOException {
        Schema current = WorkerTelemetry.getClassSchema();
        Schema before = Schema.createRecord(current.getName(), current.getDoc(), current.getNamespace(), false,
                current.getFields().stream().filter(f -> !ADDED.contains(f.name()))
                        .map(f -> new Schema.Field(f, f.schema())).toList());
        assertThat(before.getFields()).hasSize(current.getFields().size() - ADDED.size());
        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(current, before).getType())
                .as("a new router reads an old worker's telemetry").isEqualTo(SchemaCompatibilityType.COMPATIBLE);
        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(before, current).getType())
                .as("an old router reads a new worker's telemetry").isEqualTo(SchemaCompatibilityType.COMPATIBLE);

        InMemorySchemaRegistryClient registry = new InMemorySchemaRegistryClient();
        int oldId = registry.register(TOPIC + "-value", before);
        GenericRecord old = new GenericData.Record(before);
        old.put("workerId", "w-1");
        old.put("region", "us-east");
        old.put("models", List.of());
        old.put("ownedPartitions", List.of(0));
        old.put("kvBlocksTotal", 28_000L);
        old.put("kvBlocksUsed", 7_000L);
        old.put("kvBlockTokens", 16);
        old.put("kvUsage", 0.25);
        old.put("runningRequests", 2);
        old.put("waitingRequests", 1);
        old.put("runningPrefill", 1);
        old.put("runningDecode", 1);
        old.put("queuedPrefillTokens", 4_000L);
        old.put("maxRunningRequests", 256);
        old.put("prefixCacheHitRate", 0.5);
        old.put("tokensPerSecond", 100.0);
        old.put("status", new GenericData.EnumSymbol(before.getField("status").schema(), "HEALTHY"));
        old.put("rateLimitedUntilMs", null);
        old.put("observedAtMs", 1_000L);

        WorkerTelemetry read = new AvroSerde<>(WorkerTelemetry.class, registry).deserialize(TOPIC, ConfluentBytes.of(oldId, old));

        assertThat(read.getQueuedPrefillTokens()).isEqualTo(4_000L);
        assertThat(read.getQueuedPrefillAttention()).as("not reported").isZero();
        assertThat(read.getPool()).as("no pool named").isEmpty();
        assertThat(read.getOwedPrefillTokens()).isZero();
        assertThat(read.getOwedPrefillRequests()).isZero();
        assertThat(read.getDecodingContextTokens()).isZero();
        assertThat(read.getRecentTtftMs()).isZero();
        assertThat(read.getDecodeMsPerToken()).isZero();
        assertThat(read.getStatus()).isEqualTo(WorkerStatus.HEALTHY);
    }
}
