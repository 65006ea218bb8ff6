package io.kvroute.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.worker.engine.sim.CostModel;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HeterogeneousFleetTest {
    private static final SimConfig MIXED = SimConfig.defaults().withDispatchLatencyMs(20)
            .withFleet(FleetSpec.parse("h=1@5:llama-8b-h100,a=1@5:llama-8b-a100"));

    @Test
    void shouldRunEachGpuAtItsOwnPoolsSpeed() {
        // the same 4,000-token prompt alone on an idle GPU, first in the H100 region, then in the A100 one
        TraceRequest onH100 = prompt(1_000, 100, "h");
        TraceRequest onA100 = prompt(20_000, 200, "a");

        long[] ttfts = Simulator.run("round-robin", List.of(onH100, onA100), MIXED).ttftsMs();

        EngineProfile h100 = EngineProfile.LLAMA_8B_H100;
        EngineProfile a100 = EngineProfile.LLAMA_8B_A100;
        long h100Prefill = Bounds.idlePrefillMs(h100.costModel(), h100.limits(), onH100, 0);
        long a100Prefill = Bounds.idlePrefillMs(a100.costModel(), a100.limits(), onA100, 0);
        assertThat(ttfts[0]).isEqualTo(20 + 2 * 5 + h100Prefill);
        assertThat(ttfts[1]).isEqualTo(20 + 2 * 5 + a100Prefill);
        assertThat(a100Prefill).isGreaterThan(2 * h100Prefill);
    }

    @Test
    void shouldRunTheA100ProfileFromItsStatedSources() {
        CostModel a100 = EngineProfile.LLAMA_8B_A100.costModel();
        CostModel h100 = EngineProfile.LLAMA_8B_H100.costModel();

        // inference-sim's A100-80 fit (T0, a); H100 physics terms times 989.5/312 (compute) and 3.35/2.039 (HBM)
        assertThat(a100.stepOverheadMs()).isEqualTo(16.44);
        assertThat(a100.perPrefillTokenMs()).isEqualTo(0.0478);
        assertThat(a100.attentionMsPerTokenSquared() / h100.attentionMsPerTokenSquared()).isCloseTo(989.5 / 312, within(1e-9));
        assertThat(a100.perDecodeSequenceMs() / h100.perDecodeSequenceMs()).isCloseTo(989.5 / 312, within(1e-9));
        assertThat(a100.perDecodeContextTokenMs() / h100.perDecodeContextTokenMs()).isCloseTo(3.35 / 2.039, within(1e-9));
        assertThat(a100.hostLoadMsPerToken()).isCloseTo(2 * h100.hostLoadMsPerToken(), within(1e-12));
        // same 80 GB of HBM, vLLM's A100 step budget
        assertThat(EngineProfile.LLAMA_8B_A100.limits().kvBlocks()).isEqualTo(EngineProfile.LLAMA_8B_H100.limits().kvBlocks());
        assertThat(EngineProfile.LLAMA_8B_A100.limits().maxBatchedTokens()).isEqualTo(2_048);
        assertThat(a100.idlePrefillMs(1_000, 0)).isBetween(60.0, 70.0);
    }

    private static TraceRequest prompt(long arrivalMs, long firstBlock, String region) {
        long[] blocks = new long[8];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = firstBlock + i;
        }
        return new TraceRequest(arrivalMs, 4_000, 1, blocks, 512).withTenancy("t", Set.of(region), TraceRequest.BATCH);
    }
}
