package io.kvroute.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.bench.trace.TraceRequest;
import java.util.List;
import java.util.Map;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/** TTFT excess and slowdown: each served request against its own oracle TTFT, never another request's. */
class TtftExcessTest {
    private final SimConfig config = SimConfig.defaults().withFleet(FleetSpec.parse("r=2@10")).withDispatchLatencyMs(20);

    @Test
    void shouldSetEachServedTtftAgainstItsOwnRequestsOracle() {
        // request 1 was not served: the served TTFTs 130 and 60 belong to requests 0 and 2
        PolicyResult served = result(new long[] {130, 60}, new int[] {0, 2});

        PolicyResult measured = served.withOracle(new long[] {100, 10, 50});

        // against its own oracle: 130 - 100 and 60 - 50; against the k-th oracle it would be 30 and 50
        assertThat(measured.ttftExcessMs().p50()).isEqualTo(10);
        assertThat(measured.ttftExcessMs().p99()).isEqualTo(30);
        assertThat(measured.ttftExcessMs().mean()).isEqualTo(20);
        assertThat(measured.slowdown().p50()).isCloseTo(1.2, Offset.offset(1e-9));
        assertThat(measured.slowdown().p99()).isCloseTo(1.3, Offset.offset(1e-9));
        assertThat(measured.ttftMs()).isEqualTo(served.ttftMs());
    }

    @Test
    void shouldRefuseAResultThatDoesNotSayWhichRequestEachTtftBelongsTo() {
        PolicyResult anonymous = new PolicyResult("p", 1, 0, 0, Latency.EMPTY, Latency.EMPTY, new long[] {5}, 0, 0, 0, 0, 1,
                Map.of(), 0, 0, EstimateError.NONE);

        assertThat(anonymous.ttftExcessMs()).isEqualTo(Latency.EMPTY);
        assertThatThrownBy(() -> anonymous.withOracle(new long[] {1})).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("which request");
        assertThatThrownBy(() -> result(new long[] {5}, new int[] {3}).withOracle(new long[] {1, 2}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("served request 3");
    }

    @Test
    void shouldGiveNoExcessToAPrefixAwarePolicyOnAnIdleFleetWhereRequestsDifferInOracle() {
        // the second request reuses two of the first's three blocks: oracle 79 ms then 58 ms (ToySimulationTest)
        List<TraceRequest> trace = List.of(
                new TraceRequest(0, 1536, 2, new long[] {1, 2, 3}, 512),
                new TraceRequest(1_000, 1536, 2, new long[] {1, 2, 4}, 512));
        assertThat(Bounds.oracleTtftsMs(trace, config)).containsExactly(79, 58);

        PolicyResult kvroute = Simulator.run("kvroute", trace, config);
        PolicyResult roundRobin = Simulator.run("round-robin", trace, config);

        assertThat(kvroute.ttftExcessMs()).isEqualTo(new Latency(0, 0, 0, 0));
        assertThat(kvroute.slowdown()).isEqualTo(new Slowdown(1.0, 1.0));
        // round-robin sends the second request to the other GPU: 79 ms against its own 58 ms oracle
        assertThat(roundRobin.ttftsMs()).containsExactly(79L, 79L);
        assertThat(roundRobin.ttftExcessMs()).isEqualTo(new Latency(0, 21, 21, 10.5));
        assertThat(roundRobin.slowdown().p99()).isCloseTo(79.0 / 58, Offset.offset(1e-9));
    }

    @Test
    void shouldLeaveARequestThatFailedOutOfTheExcessAndMatchTheRestToTheirOwnOracles() {
        // 200 pages of 16 tokens: the 8,000-token first request cannot fit and fails; the two others are served
        SimConfig small = config.withEngine(config.engine().withKvBlocks(200));
        List<TraceRequest> trace = List.of(
                new TraceRequest(0, 8_000, 2, new long[] {11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26}, 512),
                new TraceRequest(1_000, 1536, 2, new long[] {1, 2, 3}, 512),
                new TraceRequest(2_000, 1536, 2, new long[] {1, 2, 4}, 512));

        PolicyResult result = Simulator.run("kvroute", trace, small);

        assertThat(result.failed()).isEqualTo(1);
        assertThat(result.servedRequests()).containsExactly(1, 2);
        // matched by position instead, the first served TTFT would be set against the failed request's far larger oracle
        assertThat(result.ttftExcessMs()).isEqualTo(new Latency(0, 0, 0, 0));
    }

    private static PolicyResult result(long[] ttfts, int[] served) {
        return new PolicyResult("p", ttfts.length, 1, 0, Latency.of(ttfts), Latency.EMPTY, ttfts, 0, 0, 0, 0, 1, Map.of(), 0, 0,
                EstimateError.NONE, served, Latency.EMPTY, Slowdown.EMPTY);
    }
}
