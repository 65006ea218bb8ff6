package io.kvroute.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.registry.InMemorySchemaRegistryClient;
import io.kvroute.schemas.v1.KvCacheEvent;
import java.io.IOException;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/**
 * KV events from a worker built before the events named memory tiers (the schema without
 * offloaded and reloaded blocks) must still be read by a newer router, as a rolling upgrade
 * upgrades routers and workers at different times.
 */
class KvCacheEventEvolutionTest {
    /** KvCacheEvent as it was before the memory-tier fields. */
    private static final Schema WITHOUT_TIERS = new Schema.Parser().parse("""
            {"type": "record", "name": "KvCacheEvent", "namespace": "io.kvroute.schemas.v1", "fields": [
              {"name": "workerId", "type": "string"},
              {"name": "region", "type": "string"},
              {"name": "sequence", "type": "long"},
              {"name": "storedBlockHashes", "type": {"type": "array", "items": "long"}, "default": []},
              {"name": "evictedBlockHashes", "type": {"type": "array", "items": "long"}, "default": []},
              {"name": "allCleared", "type": "boolean", "default": false},
              {"name": "observedAtMs", "type": "long"}]}
            """);

    @Test
    void shouldReadAnEventWrittenWithoutTiersAsHavingNoneMoved() throws IOException {
        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(KvCacheEvent.getClassSchema(), WITHOUT_TIERS).getType())
                .isEqualTo(SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
        InMemorySchemaRegistryClient registry = new InMemorySchemaRegistryClient();
        int oldId = registry.register("kvroute.kv-events-value", WITHOUT_TIERS);
        GenericRecord old = new GenericData.Record(WITHOUT_TIERS);
        old.put("workerId", "w-1");
        old.put("region", "us-east");
        old.put("sequence", 7L);
        old.put("storedBlockHashes", List.of(1L, 2L));
        old.put("evictedBlockHashes", List.of(3L));
        old.put("allCleared", false);
        old.put("observedAtMs", 1_000L);

        KvCacheEvent read = new AvroSerde<>(KvCacheEvent.class, registry).deserialize("kvroute.kv-events", ConfluentBytes.of(oldId, old));

        assertThat(read.getStoredBlockHashes()).containsExactly(1L, 2L);
        assertThat(read.getEvictedBlockHashes()).containsExactly(3L);
        assertThat(read.getOffloadedBlockHashes()).isEmpty();
        assertThat(read.getReloadedBlockHashes()).isEmpty();
        assertThat(read.getSequence()).isEqualTo(7L);
    }
}
