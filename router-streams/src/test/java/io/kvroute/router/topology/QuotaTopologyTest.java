package io.kvroute.router.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.schemas.topics.RunAttempt;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.RoutingDecision;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tenant quotas in the admission step: admit, wait, reject, expire, and settle by actual usage. */
class QuotaTopologyTest {
    @TempDir
    Path stateDir;

    private TopologyHarness harness;

    @AfterEach
    void close() {
        harness.close();
    }

    private void start(String quotas) {
        harness = new TopologyHarness(stateDir, Map.of("router.tenant.quotas", quotas));
        reportEast();
    }

    private void reportEast() {
        harness.report(Records.telemetry("east-1", "us-east", List.of(0), harness.now()));
    }

    private InferenceRequest.Builder request(String id, String tenant) {
        return Records.request(id, harness.now()).setTenant(tenant).setAllowedRegions(List.of("us-east"));
    }

    private double throttled(String tenant, String action) {
        var counter = harness.metrics.registry().find(RouterMetrics.REQUESTS_THROTTLED).tag("tenant", tenant).tag("action", action)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void shouldRejectARequestOverItsTenantsRequestsPerMinuteInRejectModeWhileOthersAreDispatched() {
        start("bulk=2/-/reject");

        harness.send(request("bulk-0", "bulk").build());
        harness.send(request("bulk-1", "bulk").build());
        harness.send(request("bulk-2", "bulk").build());
        harness.send(request("other-0", "tenant-a").build());

        assertThat(harness.dispatchedIds("us-east")).containsExactly("bulk-0", "bulk-1", "other-0");
        ResponseEvent rejected = harness.responses.readValue();
        assertThat(rejected.getRequestId()).isEqualTo("bulk-2");
        assertThat(rejected.getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
        assertThat(rejected.getTerminal().getError()).isEqualTo("over quota: tenant bulk over its quota of 2 requests per minute");
        assertThat(harness.decisions.readValuesToList()).filteredOn(d -> d.getRequestId().equals("bulk-2")).singleElement()
                .satisfies(d -> {
                    assertThat(d.getOutcome()).isEqualTo(DecisionOutcome.REJECTED);
                    assertThat(d.getTenant()).isEqualTo("bulk");
                    assertThat(d.getReason()).startsWith("over quota: ");
                });
        assertThat(throttled("bulk", "reject")).isEqualTo(1.0);
        assertThat(throttled("tenant-a", "reject")).isZero();
    }

    @Test
    void shouldMakeARequestOverQuotaWaitAndAdmitItWhenTheQuotaRefills() {
        start("acme=2/-");

        for (int i = 0; i < 3; i++) {
            harness.send(request("acme-" + i, "acme").build());
        }

        assertThat(harness.dispatchedIds("us-east")).containsExactly("acme-0", "acme-1");
        List<RoutingDecision> decisions = harness.decisions.readValuesToList();
        assertThat(decisions).filteredOn(d -> d.getRequestId().equals("acme-2")).singleElement().satisfies(d -> {
            assertThat(d.getOutcome()).isEqualTo(DecisionOutcome.NO_CAPACITY);
            assertThat(d.getReason()).startsWith("over quota: tenant acme over its quota of 2 requests per minute; waiting");
        });
        assertThat(harness.metrics.quotaWaiting()).isEqualTo(1);
        assertThat(throttled("acme", "wait")).isEqualTo(1.0);

        harness.advance(29_000);
        reportEast();
        harness.advance(100);
        assertThat(harness.dispatched("us-east").isEmpty()).as("one request refills every 30 s").isTrue();

        harness.advance(1_000);
        reportEast();
        harness.advance(100);
        assertThat(harness.dispatchedIds("us-east")).containsExactly("acme-2");
        assertThat(harness.metrics.quotaWaiting()).isZero();
        assertThat(harness.responses.isEmpty()).isTrue();
    }

    @Test
    void shouldQueueANewcomerBehindItsTenantsWaitingRequestsAndExpireItAtItsDeadline() {
        start("acme=1/-");
        harness.send(request("acme-0", "acme").build());
        harness.send(request("acme-1", "acme").build());
        harness.send(request("acme-2", "acme").setDeadlineMs(harness.now() + 5_000).build());
        assertThat(harness.dispatchedIds("us-east")).containsExactly("acme-0");
        assertThat(harness.metrics.quotaWaiting()).isEqualTo(2);

        harness.advance(5_000);

        ResponseEvent expired = harness.responses.readValue();
        assertThat(expired.getRequestId()).isEqualTo("acme-2");
        assertThat(expired.getTerminal().getStatus()).isEqualTo(ResponseStatus.EXPIRED);
        assertThat(expired.getTerminal().getError()).startsWith("over quota: deadline ");
        assertThat(harness.decisions.readValuesToList()).filteredOn(d -> d.getRequestId().equals("acme-2"))
                .extracting(RoutingDecision::getOutcome).containsExactly(DecisionOutcome.NO_CAPACITY, DecisionOutcome.NO_CAPACITY);
        assertThat(harness.metrics.quotaWaiting()).isEqualTo(1);
    }

    @Test
    void shouldRejectAtOnceARequestWhoseWaitWouldOutlastItsDeadline() {
        start("acme=1/-");
        harness.send(request("acme-0", "acme").build());
        harness.send(request("acme-1", "acme").setDeadlineMs(harness.now() + 5_000).build());

        ResponseEvent rejected = harness.responses.readValue();
        assertThat(rejected.getRequestId()).isEqualTo("acme-1");
        assertThat(rejected.getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
        assertThat(rejected.getTerminal().getError()).endsWith("until past the request's deadline");
    }

    @Test
    void shouldReturnTheUnusedPartOfAReservationWhenTheResultArrives() {
        start("acme=-/1000");
        // reserves 150 prompt + 700 max tokens of the 1000 per minute; the next two need 214 each
        harness.send(request("big", "acme").setMaxTokens(700).build());
        harness.send(request("small-1", "acme").build());
        harness.send(request("small-2", "acme").build());
        assertThat(harness.dispatchedIds("us-east")).containsExactly("big");

        harness.responsesIn.pipeInput("big", harness.completed("big", RunAttempt.of(1, 1), 150, 10));
        harness.advance(4_000);
        reportEast();
        harness.advance(100);

        assertThat(harness.dispatchedIds("us-east")).as("without the refund only small-1 would fit by now")
                .containsExactly("small-1", "small-2");
    }

    @Test
    void shouldReturnTheWholeReservationOfARequestTheRouterAnswersWithoutRunningIt() {
        start("acme=-/1000");
        harness.advance(2_500);
        // east-1's telemetry is stale: the admitted request waits for capacity and expires there
        harness.send(request("expires", "acme").setMaxTokens(700).setDeadlineMs(harness.now() + 1_000).build());
        harness.send(request("next", "acme").setMaxTokens(700).build());
        harness.advance(1_000);
        assertThat(harness.responses.readValue().getTerminal().getStatus()).isEqualTo(ResponseStatus.EXPIRED);

        reportEast();
        harness.advance(100);
        assertThat(harness.dispatchedIds("us-east")).containsExactly("next");
    }

    @Test
    void shouldAddTheAdmissionStepOnlyWhenSomeTenantHasAQuota() {
        harness = new TopologyHarness(stateDir, Map.of());
        String without = RouterTopology.build(harness.config, harness.serdes).describe().toString();
        assertThat(without).doesNotContain("admission").doesNotContain("admitted");
        harness.close();

        harness = new TopologyHarness(stateDir, Map.of("router.quota.default", "600/-"));
        var description = RouterTopology.build(harness.config, harness.serdes).describe();
        assertThat(description.subtopologies()).anySatisfy(sub -> assertThat(sub.nodes())
                .extracting(node -> node.name()).contains("kvroute-admission-source", "kvroute-admission")
                .doesNotContain("kvroute-request-router"));
        assertThat(description.toString()).contains(harness.config.admissionTopic(), harness.config.admittedTopic());
    }
}
