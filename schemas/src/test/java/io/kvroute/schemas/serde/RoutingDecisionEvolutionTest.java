package io.kvroute.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.v1.RoutingDecision;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.junit.jupiter.api.Test;

/**
 * Router instances of two versions run side by side during a rolling upgrade: each must read the
 * other's decision records, with and without the fields that let instances follow each other.
 */
class RoutingDecisionEvolutionTest {
    private static final Set<String> PEER_FIELDS = Set.of("routerInstance", "promptTokens", "maxTokens", "prefixBlockTokens",
            "prefixBlockHashes");

    @Test
    void shouldReadDecisionsWrittenWithAndWithoutThePeerFields() {
        Schema current = RoutingDecision.getClassSchema();
        List<Schema.Field> older = current.getFields().stream().filter(f -> !PEER_FIELDS.contains(f.name()))
                .map(f -> new Schema.Field(f, f.schema())).toList();
        Schema before = Schema.createRecord(current.getName(), current.getDoc(), current.getNamespace(), false, older);

        assertThat(before.getFields()).hasSize(current.getFields().size() - PEER_FIELDS.size());
        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(current, before).getType())
                .as("a new router reads an old router's decisions").isEqualTo(SchemaCompatibilityType.COMPATIBLE);
        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(before, current).getType())
                .as("an old router or reader reads a new router's decisions").isEqualTo(SchemaCompatibilityType.COMPATIBLE);
    }

    @Test
    void shouldReadDecisionsWrittenWithAndWithoutComponentNames() {
        Schema current = RoutingDecision.getClassSchema();
        Schema candidate = current.getField("topCandidates").schema().getElementType();
        Schema oldCandidate = Schema.createRecord(candidate.getName(), candidate.getDoc(), candidate.getNamespace(), false,
                candidate.getFields().stream().filter(f -> !f.name().equals("componentValues"))
                        .map(f -> new Schema.Field(f, f.schema())).toList());
        List<Schema.Field> older = current.getFields().stream().filter(f -> !f.name().equals("componentNames"))
                .map(f -> f.name().equals("topCandidates")
                        ? new Schema.Field(f, Schema.createArray(oldCandidate))
                        : new Schema.Field(f, f.schema())).toList();
        Schema before = Schema.createRecord(current.getName(), current.getDoc(), current.getNamespace(), false, older);

        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(current, before).getType())
                .as("a new reader reads decisions with a components map per candidate").isEqualTo(SchemaCompatibilityType.COMPATIBLE);
        assertThat(SchemaCompatibility.checkReaderWriterCompatibility(before, current).getType())
                .as("an old reader reads decisions with names once").isEqualTo(SchemaCompatibilityType.COMPATIBLE);
    }
}
