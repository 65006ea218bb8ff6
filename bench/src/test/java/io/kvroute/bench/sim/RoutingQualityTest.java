package io.kvroute.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.bench.BenchCommand;
import io.kvroute.bench.trace.MooncakeTrace;
import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.bench.trace.Traces;
import io.kvroute.router.routing.Policies;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The routing-quality claim, kept true: on the Mooncake trace at the default fleet and load,
 * kvroute's TTFT p99 is at least 20 % below the best baseline's, its p50 no worse than the best
 * baseline's, and its prefix hit rate at least 90 % of the infinite-cache bound. Virtual time, so
 * the figures are deterministic, not wall-clock.
 */
class RoutingQualityTest {

    @Test
    void shouldBeatEveryBaselineOnTheMooncakeTraceAtTheDefaultLoad() {
        List<TraceRequest> trace = Traces.scaleLoad(
                MooncakeTrace.read(Path.of("../traces/mooncake_fast25_synthetic/synthetic_trace.jsonl"), Integer.MAX_VALUE),
                BenchCommand.DEFAULT_MOONCAKE_LOAD_SCALE);
        SimConfig config = SimConfig.defaults();

        Map<String, PolicyResult> results = Simulator.runAll(Policies.names(), trace, config, 2);
        Bounds bounds = Bounds.compute(trace, config);

        PolicyResult kvroute = results.get("kvroute");
        double bestBaselineP99 = Policies.baselineNames().stream().mapToDouble(p -> results.get(p).ttftMs().p99()).min().orElseThrow();
        double bestBaselineP50 = Policies.baselineNames().stream().mapToDouble(p -> results.get(p).ttftMs().p50()).min().orElseThrow();
        assertThat(kvroute.completed()).isEqualTo(trace.size());
        assertThat(kvroute.ttftMs().p99()).isLessThanOrEqualTo(0.8 * bestBaselineP99);
        assertThat(kvroute.ttftMs().p50()).isLessThanOrEqualTo(bestBaselineP50);
        assertThat(kvroute.prefixHitRate()).isGreaterThanOrEqualTo(0.9 * bounds.prefixHitRateUpper());
    }
}
