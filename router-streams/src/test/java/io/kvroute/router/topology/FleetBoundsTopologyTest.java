package io.kvroute.router.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.router.metrics.RouterMetrics;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Telemetry of more workers than {@code router.telemetry.max.workers} is refused: worker ids come from records. */
class FleetBoundsTopologyTest {
    @TempDir
    Path stateDir;

    @Test
    void shouldRefuseTelemetryOfANewWorkerPastTheLimitAndKeepTheKnownOnes() {
        try (TopologyHarness harness = new TopologyHarness(stateDir, Map.of("router.telemetry.max.workers", "2"))) {
            harness.report(Records.telemetry("east-1", "us-east", List.of(0), harness.now()));
            harness.report(Records.telemetry("east-2", "us-east", List.of(1), harness.now()));
            harness.report(Records.telemetry("forged-3", "us-east", List.of(2), harness.now()));
            harness.report(Records.telemetry("east-1", "us-east", List.of(0), harness.now()));

            assertThat(harness.metrics.registry().counter(RouterMetrics.TELEMETRY_SKIPPED, "reason", "too_many_workers").count())
                    .as("only the third worker is refused; a known one still reports").isEqualTo(1.0);
            harness.send(Records.request("r-1", harness.now()).build());
            assertThat(harness.dispatched("us-east").readValue().getWorkerId()).isIn("east-1", "east-2");
        }
    }
}
