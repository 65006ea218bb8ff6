package io.kvroute.bench.sim.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.kvroute.bench.sim.EngineProfile;
import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.bench.sim.SimConfig;
import io.kvroute.bench.sim.SimulationObserver;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulationRunFleetTest {
    @Test
    void shouldBuildEachGpuWithItsPoolsEngineNumberingARegionsSlotsAcrossItsPools() {
        SimConfig config = SimConfig.defaults().withEngine(EngineProfile.LLAMA_8B_H100.withKvBlocks(9_000))
                .withFleet(FleetSpec.parse("us-east=2@5,us-east=1@5:llama-8b-a100,eu-west=1@40:llama-8b-a100"));

        SimulationRun run = new SimulationRun("round-robin", List.of(), config, SimulationObserver.NONE);

        assertThat(run.gpus()).extracting(g -> g.index, g -> g.workerId, g -> g.slot, g -> g.delayMs, g -> g.engineName)
                .containsExactly(tuple(0, "us-east-gpu-0", 0, 5L, "llama-8b-h100"), tuple(1, "us-east-gpu-1", 1, 5L, "llama-8b-h100"),
                        tuple(2, "us-east-gpu-2", 2, 5L, "llama-8b-a100"), tuple(3, "eu-west-gpu-0", 0, 40L, "llama-8b-a100"));
        assertThat(run.gpus()).extracting(g -> g.stats().kvBlocksTotal()).containsExactly(9_000L, 9_000L, 9_000L, 9_000L);
    }
}
