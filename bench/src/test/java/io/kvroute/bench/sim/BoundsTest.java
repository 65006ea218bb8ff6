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

    @Test
    void shouldKeepTheOracleOfAFleetOfOneEngineWhateverPoolsItIsWrittenIn() {
        List<TraceRequest> trace = SimTraces.mooncake(800);
        long[] defaults = Bounds.oracleTtftsMs(trace, SimConfig.defaults());

        for (String fleet : List.of("us-east=6@5:llama-8b-h100,eu-west=2@40:llama-8b-h100",
                "us-east=3@5,us-east=3@5:llama-8b-h100,eu-west=2@40", "x=1@5")) {
            assertThat(Bounds.oracleTtftsMs(trace, SimConfig.defaults().withFleet(FleetSpec.parse(fleet)))).as(fleet)
                    .containsExactly(defaults);
        }
        // the rule before pools: the run's engine in the nearest region
        TraceRequest first = trace.get(0);
        assertThat(defaults[0]).isEqualTo(SimConfig.DEFAULT_DISPATCH_LATENCY_MS + 2 * 5
                + Bounds.idlePrefillMs(CostModel.llama8bH100(), SimConfig.defaults().engine().limits(), first, 0));
    }

    @Test
    void shouldTakeTheBestPoolOfAMixedFleetForEachRequest() {
        SimConfig mixed = config.withFleet(FleetSpec.parse("near=1@5:llama-8b-a100,far=1@40:llama-8b-h100"));
        EngineProfile a100 = EngineProfile.LLAMA_8B_A100;
        EngineProfile h100 = EngineProfile.LLAMA_8B_H100;
        TraceRequest shortPrompt = new TraceRequest(0, 200, 1, new long[] {1}, 512);
        TraceRequest longPrompt = new TraceRequest(10, 8_000, 1, new long[] {11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26}, 512);

        long[] oracle = Bounds.oracleTtftsMs(List.of(shortPrompt, longPrompt), mixed);

        long shortNear = 20 + 2 * 5 + Bounds.idlePrefillMs(a100.costModel(), a100.limits(), shortPrompt, 0);
        long shortFar = 20 + 2 * 40 + Bounds.idlePrefillMs(h100.costModel(), h100.limits(), shortPrompt, 0);
        long longNear = 20 + 2 * 5 + Bounds.idlePrefillMs(a100.costModel(), a100.limits(), longPrompt, 0);
        long longFar = 20 + 2 * 40 + Bounds.idlePrefillMs(h100.costModel(), h100.limits(), longPrompt, 0);
        assertThat(shortNear).isLessThan(shortFar); // a short prompt is best on the near, slower GPU
        assertThat(longFar).isLessThan(longNear); // a long one is worth the ocean to the faster GPU
        assertThat(oracle).containsExactly(shortNear, longFar);
    }

    @Test
    void shouldBeAPerRequestLowerBoundOnAMixedFleet() {
        SimConfig mixed = SimConfig.defaults()
                .withFleet(FleetSpec.parse("us-east=2@5:llama-8b-h100,us-east=2@5:llama-8b-a100,eu-west=1@40:llama-8b-h100"));
        List<TraceRequest> trace = TenantWorkload.generate(TenantWorkload.Spec.llmdDefaults(300, 20, 7));
        long[] oracle = Bounds.oracleTtftsMs(trace, mixed);
        for (String policy : List.of("round-robin", "kvroute", "dynamo-kv")) {
            PolicyResult result = Simulator.run(policy, trace, mixed);
            assertThat(result.completed()).as(policy).isEqualTo(trace.size());
            long[] ttfts = result.ttftsMs();
            for (int i = 0; i < trace.size(); i++) {
                assertThat(ttfts[i]).as("%s request %d", policy, i).isGreaterThanOrEqualTo(oracle[i]);
            }
        }
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
