package io.kvroute.router.topology.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DispatchRoutingTest {

    private static DispatchedRequest placedOn(String region, int partition) {
        InferenceRequest request = InferenceRequest.newBuilder().setRequestId("r1").setTenant("t").setModel("m")
                .setPrompt("p").setMaxTokens(1).setSubmittedAtMs(0).build();
        return DispatchedRequest.newBuilder().setRequest(request).setRegion(region).setPartition(partition)
                .setWorkerId("w").setPolicy("kvroute").setDecidedAtMs(0).build();
    }

    @Test
    void shouldSendToTheRegionTopicOnTheChosenPartition() {
        assertThat(DispatchRouting.topicOf(new KvrouteTopics("pfx", 4)).extract("r1", placedOn("eu-west", 3), null))
                .isEqualTo("pfx.dispatch.eu-west");
        assertThat(DispatchRouting.partitioner().partitions("pfx.dispatch.eu-west", "r1", placedOn("eu-west", 3), 8))
                .isEqualTo(Optional.of(Set.of(3)));
    }

    @Test
    void shouldStayWithinTheTopicWhenTelemetryNamedAMissingPartition() {
        assertThat(DispatchRouting.partitioner().partitions("t", "r1", placedOn("eu-west", 9), 4))
                .isEqualTo(Optional.of(Set.of(1)));
    }

    @Test
    void shouldReadOnlyPrintableUtf8KeysAsRequestIds() {
        assertThat(RequestIntake.readableKey("req-1".getBytes())).isEqualTo("req-1");
        assertThat(RequestIntake.readableKey(new byte[] {(byte) 0xc3, (byte) 0x28})).isNull();
        assertThat(RequestIntake.readableKey(new byte[] {0, 1})).isNull();
        assertThat(RequestIntake.readableKey(new byte[0])).isNull();
        assertThat(RequestIntake.readableKey(null)).isNull();
    }
}
