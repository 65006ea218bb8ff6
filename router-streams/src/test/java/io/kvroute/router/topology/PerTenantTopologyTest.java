package io.kvroute.router.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.router.topology.internal.TopologyNames;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.CancelRequest;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code kvroute.tenant.topics=per-tenant} the router reads every tenant's requests topic, takes the tenant from
 * the topic, answers on the tenant's own responses topic, and passes tenants' cancels on to the cancellations topic
 * only it writes, refusing what a tenant may not write there.
 */
class PerTenantTopologyTest {
    private static final long T0 = TopologyHarness.T0;

    @TempDir
    Path stateDir;

    private final KvrouteTopics topics = KvrouteTopics.defaults();
    private TopologyHarness harness;
    private Serdes serdes;
    private TopologyTestDriver driver;
    private TestOutputTopic<String, DispatchedRequest> dispatch;

    @BeforeEach
    void startDriver() {
        harness = new TopologyHarness(stateDir, Map.of("kvroute.tenant.topics", "per-tenant"));
        serdes = harness.serdes;
        driver = harness.driver;
        harness.report(Records.telemetry("east-1", "us-east", List.of(0), T0));
        dispatch = harness.dispatched("us-east");
    }

    @AfterEach
    void closeDriver() {
        harness.close();
    }

    @Test
    void shouldTakeTheTenantFromTheTopicAndDispatchIt() {
        requestsOf("acme").pipeInput("r-1", Records.request("r-1", T0).setTenant("").build());

        assertThat(dispatch.readValue().getRequest().getTenant()).isEqualTo("acme");
    }

    @Test
    void shouldRejectARequestNamingAnotherTenantOnTheSendersOwnTopic() {
        requestsOf("mallory").pipeInput("r-2", Records.request("r-2", T0).setTenant("acme").build());

        assertThat(dispatch.isEmpty()).isTrue();
        ResponseEvent answer = responsesOf("mallory").readValue();
        assertThat(answer.getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
        assertThat(answer.getTerminal().getError()).contains("tenant_mismatch").contains("'acme'").contains("'mallory'");
        assertThat(answer.getDuplicate()).as("only the sender reads its topic: its client takes this as r-2's result").isFalse();
        assertThat(answer.getTenant()).as("the answer is mallory's, whatever the record claimed").isEqualTo("mallory");
        assertThat(responsesOf("acme").isEmpty()).isTrue();
    }

    @Test
    void shouldAnswerAnInvalidRequestOnItsTenantsTopicOnly() {
        requestsOf("acme").pipeInput("r-3", Records.request("r-3", T0).setTenant("acme").setModel("no-such-model").build());

        TestRecord<String, ResponseEvent> answer = responsesOf("acme").readRecord();
        assertThat(answer.value().getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
        assertThat(answer.value().getTenant()).isEqualTo("acme");
        assertThat(responsesOf("globex").isEmpty()).isTrue();
        assertThat(driver.createOutputTopic(topics.responses().name(), new StringDeserializer(), new ByteArrayDeserializer()).isEmpty())
                .as("nothing on the shared responses topic").isTrue();
    }

    @Test
    void shouldPassATenantsCancelOnStampedWithItsTenantAndDropWhatATenantMayNotWrite() {
        TestInputTopic<String, CancelRequest> acmeCancels = driver.createInputTopic(topics.cancellationsOf("acme").name(),
                new StringSerializer(), serdes.valueSerde(CancelRequest.class).serializer());
        TestOutputTopic<String, CancelRequest> shared = driver.createOutputTopic(topics.cancellations().name(), new StringDeserializer(),
                serdes.valueSerde(CancelRequest.class).deserializer());

        acmeCancels.pipeInput("r-4", CancelRequest.newBuilder().setRequestId("r-4").setRequestedAtMs(T0).setTenant("globex").build());
        acmeCancels.pipeInput("r-5", CancelRequest.newBuilder().setRequestId("r-5").setRequestedAtMs(T0).setSupersedesBelowAttempt(9).build());
        acmeCancels.pipeInput("r-6", CancelRequest.newBuilder().setRequestId("not-r-6").setRequestedAtMs(T0).build());
        acmeCancels.pipeInput("r-7", (CancelRequest) null);

        TestRecord<String, CancelRequest> passed = shared.readRecord();
        assertThat(passed.key()).isEqualTo("r-4");
        assertThat(passed.value().getTenant()).as("the topic's tenant, whatever the record said").isEqualTo("acme");
        assertThat(shared.isEmpty()).as("a forged re-placement marker, a mis-keyed cancel and a tombstone are dropped").isTrue();
    }

    @Test
    void shouldApplyATenantsCancelToThatTenantsRequestOnly() {
        TestInputTopic<String, CancelRequest> passedOn = driver.createInputTopic(topics.cancellations().name(), new StringSerializer(),
                serdes.valueSerde(CancelRequest.class).serializer());
        passedOn.pipeInput("r-8", CancelRequest.newBuilder().setRequestId("r-8").setRequestedAtMs(T0).setTenant("globex").build());
        passedOn.pipeInput("r-9", CancelRequest.newBuilder().setRequestId("r-9").setRequestedAtMs(T0).setTenant("acme").build());

        requestsOf("acme").pipeInput("r-8", Records.request("r-8", T0).setTenant("acme").build());
        requestsOf("acme").pipeInput("r-9", Records.request("r-9", T0).setTenant("acme").build());

        assertThat(dispatch.readValue().getRequest().getRequestId()).as("globex's cancel of the id is not acme's").isEqualTo("r-8");
        assertThat(dispatch.isEmpty()).isTrue();
        ResponseEvent answer = responsesOf("acme").readValue();
        assertThat(answer.getRequestId()).isEqualTo("r-9");
        assertThat(answer.getTerminal().getStatus()).isEqualTo(ResponseStatus.CANCELLED);
    }

    @Test
    void shouldNotLetAnAnswerOnOneTenantsTopicEndAnotherTenantsRequest() {
        requestsOf("acme").pipeInput("r-20", Records.request("r-20", T0).setTenant("acme").build());
        assertThat(dispatch.readValue().getRequest().getRequestId()).isEqualTo("r-20");

        requestsOf("mallory").pipeInput("r-20", Records.request("r-20", T0).setTenant("acme").build());
        ResponseEvent answer = responsesOf("mallory").readValue();
        driver.createInputTopic(topics.responsesOf("mallory").name(), new StringSerializer(),
                serdes.valueSerde(ResponseEvent.class).serializer()).pipeInput("r-20", answer);

        assertThat(answer.getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
        KeyValueStore<String, DispatchedRequest> inFlight = driver.getKeyValueStore(TopologyNames.IN_FLIGHT_STORE);
        assertThat(inFlight.get("r-20")).as("acme's request is still waiting for its own result").isNotNull();
    }

    private TestInputTopic<String, InferenceRequest> requestsOf(String tenant) {
        return driver.createInputTopic(topics.requestsOf(tenant).name(), new StringSerializer(),
                serdes.valueSerde(InferenceRequest.class).serializer());
    }

    private TestOutputTopic<String, ResponseEvent> responsesOf(String tenant) {
        return driver.createOutputTopic(topics.responsesOf(tenant).name(), new StringDeserializer(),
                serdes.valueSerde(ResponseEvent.class).deserializer());
    }
}
