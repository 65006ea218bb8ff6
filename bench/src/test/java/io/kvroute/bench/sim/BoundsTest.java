package io.kvroute.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.bench.trace.TenantWorkload;
import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.bench.trace.Traces;
import io.kvroute.router.routing.Policies;
import io.kvroute.worker.engine.sim.CostModel;
import java.util.List;
import org.junit.jupiter.api.Test;

class BoundsTest {
    private final SimConfig config = SimConfig.defaults().withFleet(FleetSpec.parse("a=1@5,b=1@30")).withDispatchLatencyMs(20);

    @Test
    void shouldCountEveryBlockSeenBeforeWeightedByItsTokens() {
        List<TraceRequest> trace = List.of(
                new TraceRequest(0, 1024, 1, new long[] {1, 2}, 512),
                new TraceRequest(10, 1300, 1, new long[] {1, 2, 3}, 512),
                new TraceRequest(20, 100, 1, new long[] {9}, 512),
                new TraceRequest(30, 1100, 1, new long[] {1, 2, 3}, 512));

        Bounds bounds = Bounds.compute(trace, config);

        // hits: request 2 blocks 1,2 (1024); request 4 blocks 1,2 and its 76-token tail block 3 (1100)
        assertThat(bounds.prefixHitRateUpper()).isEqualTo((1024.0 + 1100.0) / (1024 + 1300 + 100 + 1100));
    }

    @Test
    void shouldPutTheOracleOnAnIdleGpuInTheNearestRegion() {
        TraceRequest alone = new TraceRequest(0, 2000, 1, new long[] {1, 2, 3, 4}, 512);
        Bounds bounds = Bounds.compute(List.of(alone), config);

        long prefill = (long) Math.ceil(CostModel.llama8bH100().idlePrefillMs(2000, 0));
        assertThat(bounds.ttftOracleMs().p50()).isEqualTo(20 + 2 * 5 + prefill);
    }

    @Test
    void shouldChunkALongPromptLikeTheEngine() {
        TraceRequest longPrompt = new TraceRequest(0, 10_000, 1, new long[20], 512);
        CostModel cost = CostModel.llama8bH100();
        long expected = (long) Math.ceil(cost.stepMs(8192, CostModel.prefillAttention(8192, 0), 0, 0))
                + (long) Math.ceil(cost.stepMs(1808, CostModel.prefillAttention(1808, 8192), 0, 0));

        assertThat(Bounds.idlePrefillMs(cost, config.engine().limits(), longPrompt, 0)).isEqualTo(expected);
    }

    @Test
    void shouldGiveTheMooncakeSyntheticTraceItsPublishedBound() {
        Bounds bounds = Bounds.compute(SimTraces.mooncake(Integer.MAX_VALUE), SimConfig.defaults());

        assertThat(String.format(java.util.Locale.ROOT, "%.3f", bounds.prefixHitRateUpper())).isEqualTo("0.651");
    }

    /** What makes a p99 target below the oracle's p99 out of any policy's reach (QualityVerdict). */
    @Test
    void shouldBeAPerRequestLowerBoundOnEveryPolicysTtft() {
        SimConfig defaults = SimConfig.defaults();
        List<List<TraceRequest>> traces = List.of(Traces.scaleLoad(SimTraces.mooncake(800), 3.0),
                TenantWorkload.generate(TenantWorkload.Spec.llmdDefaults(400, 40, 7)));
        for (List<TraceRequest> trace : traces) {
            long[] oracle = Bounds.oracleTtftsMs(trace, defaults);
            for (String policy : Policies.names()) {
                PolicyResult result = Simulator.run(policy, trace, defaults);
                assertThat(result.completed()).as(policy).isEqualTo(trace.size());
                long[] ttfts = result.ttftsMs();
                for (int i = 0; i < trace.size(); i++) {
                    assertThat(ttfts[i]).as("%s request %d", policy, i).isGreaterThanOrEqualTo(oracle[i]);
                }
            }
        }
    }
}
