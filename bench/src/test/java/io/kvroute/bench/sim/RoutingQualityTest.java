package io.kvroute.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.bench.BenchCommand;
import io.kvroute.bench.report.BenchReport;
import io.kvroute.bench.report.QualityVerdict;
import io.kvroute.bench.trace.MooncakeTrace;
import io.kvroute.bench.trace.TenantWorkload;
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
 * the figures are deterministic, not wall-clock. Both default loads are where issue 3 asks them to be.
 */
class RoutingQualityTest {

    @Test
    void shouldBeatEveryBaselineOnTheMooncakeTraceAtTheDefaultLoad() {
        List<TraceRequest> trace = Traces.scaleLoad(
                MooncakeTrace.read(Path.of("../traces/mooncake_fast25_synthetic/synthetic_trace.jsonl"), Integer.MAX_VALUE),
                BenchCommand.DEFAULT_MOONCAKE_LOAD_SCALE);
        SimConfig config = SimConfig.defaults();

        Map<String, PolicyResult> results = Simulator.runAll(Policies.names(), trace, config, 2);
        BenchReport report = new BenchReport("mooncake", "mooncake", trace.size(), config.fleet().toString(), config.engine().name(),
                BenchCommand.DEFAULT_MOONCAKE_LOAD_SCALE, config.seed(), config.sloMs(), config.routing().candidateSampleSize(), results,
                Bounds.compute(trace, config));

        QualityVerdict verdict = QualityVerdict.of(report).orElseThrow();
        assertThat(results.get("kvroute").completed()).isEqualTo(trace.size());
        assertThat(verdict.meetsP99()).as(verdict.describe()).isTrue();
        assertThat(verdict.meetsP50()).as(verdict.describe()).isTrue();
        assertThat(verdict.meetsHitRate()).as(verdict.describe()).isTrue();
        assertNearSaturation(results.get("round-robin"));
    }

    /** Issue 3's definition of the default load: where policies differ, round-robin's p99 TTFT at least 5x its p50. */
    @Test
    void shouldPutTheFleetNearSaturationAtTheDefaultTenantLoad() {
        SimConfig config = SimConfig.defaults();
        List<TraceRequest> trace = TenantWorkload.generate(TenantWorkload.Spec.llmdDefaults(BenchCommand.DEFAULT_TENANT_REQUESTS,
                BenchCommand.DEFAULT_TENANT_RATE * BenchCommand.DEFAULT_TENANTS_LOAD_SCALE, config.seed()));

        assertNearSaturation(Simulator.run("round-robin", trace, config));
    }

    /**
     * A fleet short of KV for its load (150 tenants on 6 GPUs at 36 req/s: the running batches fill
     * most of each GPU's KV): kvroute must not copy prefixes into what KV is left until no worker can
     * admit more, and does no worse at the tail than GIE's weighted prefix scorer.
     */
    @Test
    void shouldNotFillAFleetShortOfKvWithPrefixCopies() {
        SimConfig config = SimConfig.defaults().withFleet(FleetSpec.parse("us-east=6@5"));
        List<TraceRequest> trace = TenantWorkload.generate(TenantWorkload.Spec.llmdDefaults(3_000, 36, config.seed()));

        assertKvrouteTailNoWorseThan("gie-weighted", trace, config);
    }

    /**
     * The tenants workload with 12,000 KV pages a GPU instead of 26,000: the prefixes alone take
     * most of the fleet's KV. kvroute keeps a prefix's requests on its holder past the KV headroom
     * (pricing the pages each request adds) rather than copying the prefix to a GPU with more room,
     * which filled every GPU with copies (p99 9.1 s before, LMetric 463 ms), and does no worse at
     * the tail than LMetric, which never reads KV.
     */
    @Test
    void shouldKeepPrefixesOnTheirHoldersWhenEveryGpuIsShortOfKv() {
        SimConfig config = SimConfig.defaults().withEngine(EngineProfile.LLAMA_8B_H100.withKvBlocks(12_000));
        List<TraceRequest> trace = TenantWorkload.generate(TenantWorkload.Spec.llmdDefaults(3_000, 38, config.seed()));

        assertKvrouteTailNoWorseThan("lmetric", trace, config);
    }

    /** kvroute completes every request and its TTFT p99 is at most {@code baseline}'s on the same trace and fleet. */
    private static void assertKvrouteTailNoWorseThan(String baseline, List<TraceRequest> trace, SimConfig config) {
        Map<String, PolicyResult> results = Simulator.runAll(List.of("kvroute", baseline), trace, config, 2);

        PolicyResult kvroute = results.get("kvroute");
        assertThat(kvroute.completed()).isEqualTo(trace.size());
        assertThat(kvroute.ttftMs().p99()).as("kvroute %s against %s %s", kvroute.ttftMs(), baseline, results.get(baseline).ttftMs())
                .isLessThanOrEqualTo(results.get(baseline).ttftMs().p99());
    }

    private static void assertNearSaturation(PolicyResult roundRobin) {
        assertThat(roundRobin.ttftMs().p99()).as("round-robin's TTFT p99 against 5x its p50 (%s)", roundRobin.ttftMs())
                .isGreaterThanOrEqualTo(5 * roundRobin.ttftMs().p50());
    }
}
