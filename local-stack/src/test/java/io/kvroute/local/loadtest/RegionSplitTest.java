package io.kvroute.local.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RegionSplitTest {
    @Test
    void shouldMatchTheLocalStacksDefaultFleetAtEightWorkers() {
        assertThat(RegionSplit.fleetSpec(8)).isEqualTo("us-east=4,eu-west=2,ap-south=2");
    }

    @Test
    void shouldGiveEveryWorkerASlotInTwoToOneToOneProportion() {
        assertThat(RegionSplit.of(1000)).containsExactly(Map.entry("us-east", 500), Map.entry("eu-west", 250), Map.entry("ap-south", 250));
        assertThat(RegionSplit.of(7).values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(7);
    }

    @Test
    void shouldLeaveOutARegionWithoutWorkers() {
        assertThat(RegionSplit.of(1)).containsExactly(Map.entry("us-east", 1));
        assertThat(RegionSplit.of(2)).containsExactly(Map.entry("us-east", 2));
        assertThat(RegionSplit.of(3)).containsExactly(Map.entry("us-east", 2), Map.entry("eu-west", 1));
    }

    @Test
    void shouldGroupARegionsGpusIntoWorkerProcesses() {
        Map<String, Integer> gpus = RegionSplit.of(1000);
        assertThat(RegionSplit.processes(gpus, 8)).containsExactly(Map.entry("us-east", 63), Map.entry("eu-west", 32),
                Map.entry("ap-south", 32));
        assertThat(RegionSplit.processes(gpus, 1)).isEqualTo(gpus);
        assertThat(RegionSplit.spec(RegionSplit.processes(RegionSplit.of(8), 8))).isEqualTo("us-east=1,eu-west=1,ap-south=1");
        assertThatThrownBy(() -> RegionSplit.processes(gpus, 0)).hasMessageContaining("0");
    }

    @Test
    void shouldRefuseAnEmptyFleet() {
        assertThatThrownBy(() -> RegionSplit.of(0)).hasMessageContaining("0");
    }
}
