package io.kvroute.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.worker.engine.sim.CostModel;
import java.util.List;
import org.junit.jupiter.api.Test;

class IdealBalancerTest {
    private static final CostModel COST = CostModel.llama8bH100();

    @Test
    void shouldAddNothingToRequestsThatFindAnIdleGpu() {
        SimConfig config = SimConfig.defaults().withFleet(FleetSpec.parse("a=2@5")).withDispatchLatencyMs(20);
        List<TraceRequest> trace = List.of(
                new TraceRequest(0, 2000, 1, new long[] {1, 2, 3, 4}, 512),
                new TraceRequest(0, 3000, 1, new long[] {5, 6, 7, 8, 9, 10}, 512));

        assertThat(IdealBalancer.excessMs(trace, config)).containsExactly(0, 0);
    }

    @Test
    void shouldQueueASecondRequestBehindTheFirstPayingOnlyItsTokens() {
        SimConfig config = SimConfig.defaults().withFleet(FleetSpec.parse("a=1@5")).withDispatchLatencyMs(20);
        List<TraceRequest> trace = List.of(
                new TraceRequest(0, 4000, 1, blocks(100, 8), 512),
                new TraceRequest(0, 1000, 1, new long[] {1, 2}, 512));
        long first = Bounds.idlePrefillMs(COST, config.engine().limits(), trace.get(0), 0);
        long second = Bounds.idlePrefillMs(COST, config.engine().limits(), trace.get(1), 0);

        long[] excess = IdealBalancer.excessMs(trace, config);

        // the second starts when the first's prefill ends and, riding in a running step, adds its tokens without the overhead
        double done = first + Math.max(second - COST.stepOverheadMs(), 0);
        assertThat(excess[0]).isZero();
        assertThat(excess[1]).isEqualTo(Math.round(20 + 5 + done + 5) - (20 + 2 * 5 + second));
    }

    @Test
    void shouldSendARequestToTheFarRegionOnlyWhenThatGivesItsFirstTokenSooner() {
        SimConfig config = SimConfig.defaults().withFleet(FleetSpec.parse("near=1@5,far=1@40")).withDispatchLatencyMs(20);
        TraceRequest longOne = new TraceRequest(0, 8000, 1, blocks(100, 16), 512);
        TraceRequest shortOne = new TraceRequest(0, 200, 1, new long[] {1}, 512);
        long longPrefill = Bounds.idlePrefillMs(COST, config.engine().limits(), longOne, 0);
        long shortPrefill = Bounds.idlePrefillMs(COST, config.engine().limits(), shortOne, 0);
        assertThat(longPrefill).as("the long prefill outlasts the far region's round trip").isGreaterThan(2 * 35 + shortPrefill);

        long[] excess = IdealBalancer.excessMs(List.of(longOne, shortOne), config);

        // behind the long prefill near, or 2 x 35 ms further away on the idle far GPU: the far one is sooner
        assertThat(excess).containsExactly(0, 2 * (40 - 5));
    }

    @Test
    void shouldCountBlocksEveryEarlierRequestHadAsCachedOnEveryGpu() {
        SimConfig config = SimConfig.defaults().withFleet(FleetSpec.parse("a=2@5")).withDispatchLatencyMs(20);
        List<TraceRequest> trace = List.of(
                new TraceRequest(0, 2048, 1, new long[] {1, 2, 3, 4}, 512),
                new TraceRequest(1000, 2048, 1, new long[] {1, 2, 3, 4}, 512));

        // the second finds both GPUs idle and its prefix cached on either: its oracle, no excess
        assertThat(IdealBalancer.excessMs(trace, config)).containsExactly(0, 0);
    }

    @Test
    void shouldServeWaitingRequestsInTheOrderAsked() {
        SimConfig config = SimConfig.defaults().withFleet(FleetSpec.parse("a=1@5")).withDispatchLatencyMs(20);
        // the first occupies the GPU; a long and a short one wait behind it
        List<TraceRequest> trace = List.of(
                new TraceRequest(0, 4000, 1, blocks(100, 8), 512),
                new TraceRequest(1, 6000, 1, blocks(200, 12), 512),
                new TraceRequest(2, 300, 1, blocks(300, 1), 512));

        long[] arrival = IdealBalancer.excessMs(trace, config, IdealBalancer.Order.ARRIVAL);
        long[] shortest = IdealBalancer.excessMs(trace, config, IdealBalancer.Order.SHORTEST_FIRST);
        long[] largestLast = IdealBalancer.excessMs(trace, config, IdealBalancer.Order.LARGEST_PERCENT_LAST);

        assertThat(arrival[2]).as("first come, first served: the short one waits for the long one").isGreaterThan(arrival[1]);
        assertThat(shortest[2]).as("shortest first: the short one goes ahead").isLessThan(shortest[1]);
        assertThat(shortest[1]).isGreaterThan(arrival[1]);
        assertThat(largestLast).as("of three requests the largest 1 % is the largest one, 6000 tokens: last").containsExactly(shortest);
        assertThat(IdealBalancer.excessMs(trace, config)).containsExactly(arrival);
    }

    /** {@code count} distinct block ids from {@code first}: no request here shares a prefix unless it says so. */
    private static long[] blocks(long first, int count) {
        return java.util.stream.LongStream.range(first, first + count).toArray();
    }
}
