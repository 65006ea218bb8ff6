package io.kvroute.router.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.RoutingDecision;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tenants' allowed regions: applied at intake, kept by every later decision. */
class ResidencyTopologyTest {
    private static final long PATIENCE_MS = 10_000;

    @TempDir
    Path stateDir;

    private TopologyHarness harness;

    @AfterEach
    void close() {
        harness.close();
    }

    private void report(String worker, String region) {
        harness.report(Records.telemetry(worker, region, List.of(0), harness.now()));
    }

    @Test
    void shouldRejectARequestThatAllowsNoneOfItsTenantsRegions() {
        harness = new TopologyHarness(stateDir, Map.of("router.tenant.regions", "tenant-a=eu-west|provider"));
        report("east-1", "us-east");

        harness.send(Records.request("req-1", harness.now()).setAllowedRegions(List.of("us-east")).build());

        ResponseEvent rejected = harness.responses.readValue();
        assertThat(rejected.getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
        assertThat(rejected.getTerminal().getError())
                .isEqualTo("residency: no region allowed by both the request [us-east] and tenant tenant-a [eu-west, provider]");
        RoutingDecision decision = harness.decisions.readValue();
        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.REJECTED);
        assertThat(decision.getReason()).startsWith("residency: ");
        assertThat(harness.dispatched("us-east").isEmpty()).isTrue();
    }

    @Test
    void shouldRouteARequestOnlyWithinTheRegionsBothItAndItsTenantAllow() {
        harness = new TopologyHarness(stateDir, Map.of("router.tenant.regions", "tenant-a=eu-west|provider"));
        report("east-1", "us-east");
        report("west-1", "eu-west");

        harness.send(Records.request("any", harness.now()).build());
        harness.send(Records.request("other-tenant", harness.now()).setTenant("tenant-b")
                .setAllowedRegions(List.of("us-east")).build());

        DispatchedRequest dispatched = harness.dispatched("eu-west").readValue();
        assertThat(dispatched.getRequest().getRequestId()).isEqualTo("any");
        assertThat(dispatched.getRequest().getAllowedRegions()).containsExactly("eu-west", "provider");
        assertThat(harness.dispatched("us-east").readValue().getRequest().getRequestId()).isEqualTo("other-tenant");
    }

    @Test
    void shouldNeverReplaceARequestOutsideItsTenantsRegionsWhenTheirRegionGoesSilent() {
        harness = new TopologyHarness(stateDir, Map.of("router.tenant.regions", "tenant-a=us-east",
                "router.replace.patience.ms", Long.toString(PATIENCE_MS)));
        report("east-1", "us-east");
        long deadline = harness.now() + PATIENCE_MS * 3;
        harness.send(Records.request("req-1", harness.now()).setDeadlineMs(deadline).build());
        assertThat(harness.dispatched("us-east").readValue().getAttempt()).isEqualTo(1);

        for (int second = 0; second < PATIENCE_MS * 4 / 1_000; second++) {
            harness.advance(1_000);
            report("west-1", "eu-west");
        }

        assertThat(harness.dispatched("eu-west").isEmpty()).as("never outside the tenant's regions").isTrue();
        assertThat(harness.dispatched("provider").isEmpty()).isTrue();
        ResponseEvent expired = harness.responses.readValue();
        assertThat(expired.getTerminal().getStatus()).isEqualTo(ResponseStatus.EXPIRED);
    }
}
