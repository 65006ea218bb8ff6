package io.kvroute.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.worker.engine.sim.CostModel;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToySimulationTest {
    private static final long DISPATCH_MS = 20;
    private static final long DELAY_MS = 10;
    private final SimConfig config = SimConfig.defaults().withFleet(FleetSpec.parse("r=2@" + DELAY_MS))
            .withDispatchLatencyMs(DISPATCH_MS);
    /** Three 512-token blocks, then the same first two blocks with a different third one, a second later. */
    private final List<TraceRequest> trace = List.of(
            new TraceRequest(0, 1536, 2, new long[] {1, 2, 3}, 512),
            new TraceRequest(1_000, 1536, 2, new long[] {1, 2, 4}, 512));

    @Test
    void shouldGiveThePrefixAwarePolicyTheCacheHitAtIdlePrefillCostPlusDelays() {
        for (String policy : List.of("kvroute", "dynamo-kv")) {
            PolicyResult result = Simulator.run(policy, trace, config);

            assertThat(result.completed()).as(policy).isEqualTo(2);
            // 2 of the 6 prompt blocks were cached: 1024 of 3072 prompt tokens
            assertThat(result.prefixHitRate()).as(policy).isEqualTo(1024.0 / 3072.0);
            CostModel cost = CostModel.llama8bH100();
            // idle prefill of 1536 tokens: 6.5 + 0.020 * 1536 + 1.3e-6 * 1536 * 768 = 38.75 ms -> 39 ms step
            assertThat(cost.idlePrefillMs(1536, 0)).isCloseTo(38.7535, org.assertj.core.data.Offset.offset(1e-3));
            // 512 uncached after 1024 cached: 6.5 + 0.020 * 512 + 1.3e-6 * 512 * (1024 + 256) = 17.59 ms -> 18 ms step
            assertThat(cost.idlePrefillMs(1536, 1024)).isCloseTo(17.592, org.assertj.core.data.Offset.offset(1e-3));
            long first = DISPATCH_MS + DELAY_MS + (long) Math.ceil(cost.idlePrefillMs(1536, 0)) + DELAY_MS;
            long second = DISPATCH_MS + DELAY_MS + (long) Math.ceil(cost.idlePrefillMs(1536, 1024)) + DELAY_MS;
            assertThat(first).isEqualTo(79);
            assertThat(second).isEqualTo(58);
            assertThat(result.ttftsMs()).as(policy).containsExactly(first, second);
        }
    }

    @Test
    void shouldMissTheCacheWhenRoundRobinSendsTheSecondRequestElsewhere() {
        PolicyResult result = Simulator.run("round-robin", trace, config);

        assertThat(result.prefixHitRate()).isZero();
        assertThat(result.ttftsMs()).containsExactly(79L, 79L);
        assertThat(result.requestsPerRegion()).containsEntry("r", 2);
    }

    @Test
    void shouldMatchTheOracleBoundOnAnIdleFleet() {
        Bounds bounds = Bounds.compute(trace, config);

        assertThat(bounds.prefixHitRateUpper()).isEqualTo(1024.0 / 3072.0);
        assertThat(bounds.ttftOracleMs().p50()).isEqualTo(58);
        assertThat(bounds.ttftOracleMs().p99()).isEqualTo(79);
    }
}
