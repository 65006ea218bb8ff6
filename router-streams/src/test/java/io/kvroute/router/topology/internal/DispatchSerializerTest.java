package io.kvroute.router.topology.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.registry.InMemorySchemaRegistryClient;
import io.kvroute.schemas.serde.AvroSerde;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.junit.jupiter.api.Test;

class DispatchSerializerTest {
    private static final String REQUESTS = "kvroute.requests";
    private static final String DISPATCH = "kvroute.dispatch.us-east";

    private final InMemorySchemaRegistryClient registry = new InMemorySchemaRegistryClient();
    private final AvroSerde<InferenceRequest> requests = new AvroSerde<>(InferenceRequest.class, registry);
    private final AvroSerde<DispatchedRequest> dispatches = new AvroSerde<>(DispatchedRequest.class, registry);
    private final DispatchSerializer serializer = new DispatchSerializer(dispatches);

    @Test
    void shouldWriteTheBytesTheSerdeWritesWhenItReusesTheRequestsEncodedBody() {
        byte[] record = requests.serialize(REQUESTS, request("r-1", "Summarise the attached report. ".repeat(40)));
        InferenceRequest decoded = requests.deserialize(REQUESTS, record);
        RequestWire.offer(decoded, record);
        DispatchedRequest dispatch = dispatchOf(decoded);

        byte[] spliced = serializer.serialize(DISPATCH, dispatch);

        RequestWire.forget(decoded);
        assertThat(spliced).isEqualTo(dispatches.serialize(DISPATCH, dispatch));
        assertThat(dispatches.deserialize(DISPATCH, spliced)).isEqualTo(dispatch);
    }

    @Test
    void shouldEncodeTheRequestWhenItIsNotTheOneOfferedOrWasChanged() {
        byte[] record = requests.serialize(REQUESTS, request("r-2", "Translate this."));
        InferenceRequest decoded = requests.deserialize(REQUESTS, record);
        RequestWire.offer(decoded, record);
        InferenceRequest copy = InferenceRequest.newBuilder(decoded).setAllowedRegions(List.of("us-east")).build();
        assertThat(serializer.serialize(DISPATCH, dispatchOf(copy))).as("a copy is not the request offered")
                .isEqualTo(dispatches.serialize(DISPATCH, dispatchOf(copy)));

        RequestWire.forget(decoded);
        decoded.setAllowedRegions(List.of("eu-west"));
        DispatchedRequest changed = dispatchOf(decoded);
        assertThat(dispatches.deserialize(DISPATCH, serializer.serialize(DISPATCH, changed)).getRequest().getAllowedRegions())
                .containsExactly("eu-west");
    }

    @Test
    void shouldEncodeTheRequestWhenItsRecordWasWrittenWithAnotherSchema() {
        InferenceRequest request = request("r-3", "Classify the ticket.");
        byte[] record = requests.serialize(REQUESTS, request);
        // the same body under the id of another schema (a client of another version): not the schema the dispatch nests
        Schema other = SchemaBuilder.record("InferenceRequest").namespace("io.kvroute.schemas.v2").fields()
                .requiredString("requestId").endRecord();
        int otherId = registry.register(REQUESTS + "-value", other);
        ByteBuffer.wrap(record).putInt(1, otherId);
        RequestWire.offer(request, record);

        byte[] written = serializer.serialize(DISPATCH, dispatchOf(request));

        RequestWire.forget(request);
        assertThat(written).isEqualTo(dispatches.serialize(DISPATCH, dispatchOf(request)));
    }

    @Test
    void shouldLeaveAnotherSerializerAlone() {
        byte[] marker = {9, 9};
        DispatchSerializer other = new DispatchSerializer((topic, data) -> marker);
        byte[] record = requests.serialize(REQUESTS, request("r-4", "Hello."));
        InferenceRequest decoded = requests.deserialize(REQUESTS, record);
        RequestWire.offer(decoded, record);

        assertThat(other.serialize(DISPATCH, dispatchOf(decoded))).isEqualTo(marker);
        RequestWire.forget(decoded);
    }

    private static InferenceRequest request(String id, String prompt) {
        return InferenceRequest.newBuilder().setRequestId(id).setTenant("acme").setModel("llama-3.1-8b").setPrompt(prompt)
                .setMaxTokens(64).setPrefixBlockHashes(List.of(11L, 12L)).setPromptTokenEstimate(prompt.length() / 4)
                .setSubmittedAtMs(1_000L).build();
    }

    private static DispatchedRequest dispatchOf(InferenceRequest request) {
        return DispatchedRequest.newBuilder().setRequest(request).setAttempt(2).setRegion("us-east").setPartition(1)
                .setWorkerId("us-east-0-g1").setPolicy("kvroute").setMatchedPrefixBlocks(1).setDecidedAtMs(5_000L).build();
    }
}
