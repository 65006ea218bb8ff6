package io.kvroute.router.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.topics.RunAttempt;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.Priority;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Parked requests served by priority, then fairly between tenants by tokens served (VTC). */
class FairnessTopologyTest {
    @TempDir
    Path stateDir;

    private TopologyHarness harness;

    @BeforeEach
    void start() {
        harness = new TopologyHarness(stateDir, Map.of());
    }

    @AfterEach
    void close() {
        harness.close();
    }

    private void reportEast() {
        harness.report(Records.telemetry("east-1", "us-east", List.of(0), harness.now()));
    }

    private void park(String id, String tenant, Priority priority) {
        InferenceRequest request = Records.request(id, harness.now()).setTenant(tenant).setPriority(priority)
                .setAllowedRegions(List.of("us-east")).build();
        harness.send(request);
    }

    @Test
    void shouldServeWaitingInteractiveRequestsBeforeBatchOnes() {
        park("batch-1", "tenant-a", Priority.BATCH);
        park("batch-2", "tenant-b", Priority.BATCH);
        park("interactive-1", "tenant-a", Priority.INTERACTIVE);
        assertThat(harness.metrics.parked()).isEqualTo(3);

        reportEast();
        harness.advance(100);

        assertThat(harness.dispatchedIds("us-east")).containsExactly("interactive-1", "batch-1", "batch-2");
    }

    @Test
    void shouldNotKeepALightTenantBehindAHeavyTenantsBacklog() {
        for (int i = 0; i < 10; i++) {
            park("heavy-" + i, "heavy", Priority.BATCH);
        }
        park("light-0", "light", Priority.BATCH);

        reportEast();
        harness.advance(100);

        List<String> order = harness.dispatchedIds("us-east");
        assertThat(order).hasSize(11);
        assertThat(order.indexOf("light-0")).as("served after one heavy request, not after ten").isEqualTo(1);
        assertThat(order.stream().filter(id -> id.startsWith("heavy")).toList())
                .as("a tenant's own requests keep their order").isSortedAccordingTo(
                        (a, b) -> Integer.compare(Integer.parseInt(a.substring(6)), Integer.parseInt(b.substring(6))));
    }

    @Test
    void shouldNotHoldATenantsRequestForARegionWithRoomBehindOneWaitingForAFullRegion() {
        harness.send(Records.request("for-west", harness.now()).setAllowedRegions(List.of("eu-west")).build());
        harness.send(Records.request("for-east", harness.now()).setAllowedRegions(List.of("us-east")).build());

        reportEast();
        harness.advance(100);

        assertThat(harness.dispatchedIds("us-east")).containsExactly("for-east");
        assertThat(harness.metrics.parked()).as("for-west waits for eu-west").isEqualTo(1);
    }

    /** Serves a-1 and b-1 (one each of tenants a and b, charged alike) from the queue, then lets telemetry go stale. */
    private void serveOneOfEachTenantThenGoStale() {
        park("a-1", "tenant-a", Priority.BATCH);
        park("b-1", "tenant-b", Priority.BATCH);
        reportEast();
        harness.advance(100);
        assertThat(harness.dispatchedIds("us-east")).containsExactly("a-1", "b-1");
        harness.advance(2_500);
    }

    @Test
    void shouldChargeATenantWhatItsServedRequestActuallyUsedOnceItsResultArrives() {
        serveOneOfEachTenantThenGoStale();
        park("a-2", "tenant-a", Priority.BATCH);
        park("a-3", "tenant-a", Priority.BATCH);
        park("b-2", "tenant-b", Priority.BATCH);
        park("b-3", "tenant-b", Priority.BATCH);
        // a-1 generated far more than its max tokens' worth was charged when it was served
        harness.responsesIn.pipeInput("a-1", harness.completed("a-1", RunAttempt.of(1, 1), 150, 10_000));
        reportEast();
        harness.advance(100);

        assertThat(harness.dispatchedIds("us-east")).containsExactly("b-2", "b-3", "a-2", "a-3");
    }

    @Test
    void shouldNotChargeATenantForARunItsWorkerHandedBack() {
        serveOneOfEachTenantThenGoStale();
        park("b-2", "tenant-b", Priority.BATCH);
        park("a-2", "tenant-a", Priority.BATCH);

        harness.report(Records.telemetry("east-2", "us-east", List.of(1), harness.now()));
        harness.responsesIn.pipeInput("a-1", Records.handBack("a-1", RunAttempt.of(1, 1), harness.now()));
        assertThat(harness.dispatchedIds("us-east")).as("placed again, not through the queue").containsExactly("a-1");
        reportEast();
        harness.advance(100);

        assertThat(harness.dispatchedIds("us-east")).as("tenant-a's refused run cost it nothing").containsExactly("a-2", "b-2");
    }
}
