package io.kvroute.router.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.v1.Priority;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The configured region profiles steer placement: the cheapest region that meets the latency class's TTFT target. */
class RegionPreferenceTopologyTest {
    @TempDir
    Path stateDir;

    private TopologyHarness harness;

    @AfterEach
    void close() {
        harness.close();
    }

    private String placeOneBatchAndOneInteractive(Map<String, String> settings) {
        harness = new TopologyHarness(stateDir, settings);
        harness.report(Records.telemetry("east-1", "us-east", List.of(0), harness.now()));
        harness.report(Records.telemetry("west-1", "eu-west", List.of(0), harness.now()));
        harness.send(Records.request("batch", harness.now()).setPriority(Priority.BATCH).build());
        harness.send(Records.request("interactive", harness.now()).setPrefixBlockHashes(List.of(21L, 22L))
                .setPriority(Priority.INTERACTIVE).build());
        return "east " + harness.dispatchedIds("us-east") + " west " + harness.dispatchedIds("eu-west");
    }

    @Test
    void shouldPlaceInTheCheapestRegionThatMeetsTheTarget() {
        assertThat(placeOneBatchAndOneInteractive(Map.of("router.region.profiles", "us-east@5:0.30,eu-west@40:0.10")))
                .isEqualTo("east [] west [batch, interactive]");
    }

    @Test
    void shouldSpillInteractiveRequestsToADearerRegionWhenTheCheapOneMissesTheirTarget() {
        assertThat(placeOneBatchAndOneInteractive(Map.of("router.region.profiles", "us-east@5:0.30,eu-west@2500:0.10")))
                .isEqualTo("east [interactive] west [batch]");
    }
}
