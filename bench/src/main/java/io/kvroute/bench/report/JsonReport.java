package io.kvroute.bench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvroute.bench.sim.EstimateError;
import io.kvroute.bench.sim.Latency;
import io.kvroute.bench.sim.PolicyResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The bench report as JSON: top level {@code trace, format, requests, fleet, engine, load_scale,
 * seed, slo_ms, candidate_sample_size}, then {@code policies} (name → completed, rejected, failed,
 * ttft_ms {p50,p90,p99,mean}, e2e_ms {p50,p99,mean}, ttft_excess_ms {p50,p90,p99,mean} (each served request's TTFT
 * minus its own oracle TTFT), slowdown {p50,p99} (TTFT / own oracle TTFT), prefix_hit_rate, preemptions, goodput_rps, throughput_tokens_s,
 * makespan_s, gpu_busy, parked, requests_per_region and, for a policy that estimates TTFT, ttft_estimate_error_ms
 * {bias, mean_abs, p90_abs, decisions}), {@code bounds} (prefix_hit_rate_upper, ttft_oracle_ms {p50,p90,p99,mean}) and,
 * when kvroute ran with a baseline, {@code verdict} on the routing-quality claim ({@link QualityVerdict}). Several seeds: {@code {"runs": [...]}}.
 */
public final class JsonReport {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JsonReport() {
    }

    public static ObjectNode toJson(BenchReport report) {
        ObjectNode root = JSON.createObjectNode();
        root.put("trace", report.trace());
        root.put("format", report.format());
        root.put("requests", report.requests());
        root.put("fleet", report.fleet());
        root.put("engine", report.engine());
        root.put("telemetry", report.telemetry());
        root.put("router_engine", report.routerEngine());
        root.put("load_scale", report.loadScale());
        root.put("seed", report.seed());
        root.put("slo_ms", report.sloMs());
        root.put("candidate_sample_size", report.candidateSampleSize());
        ObjectNode policies = root.putObject("policies");
        report.policies().forEach((name, r) -> policies.set(name, policy(r)));
        ObjectNode bounds = root.putObject("bounds");
        bounds.put("prefix_hit_rate_upper", round(report.bounds().prefixHitRateUpper(), 4));
        latency(bounds.putObject("ttft_oracle_ms"), report.bounds().ttftOracleMs(), true);
        QualityVerdict.of(report).ifPresent(v -> verdict(root.putObject("verdict"), v));
        return root;
    }

    /** Several runs (one per seed) as {@code {"runs": [report, ...]}}. */
    public static void writeRuns(List<BenchReport> reports, Path path) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode runs = root.putArray("runs");
        reports.forEach(r -> runs.add(toJson(r)));
        writeJson(root, path);
    }

    private static void verdict(ObjectNode node, QualityVerdict v) {
        node.put("best_p99_baseline", v.bestP99Baseline().policy());
        node.put("best_p50_baseline", v.bestP50Baseline().policy());
        node.put("p99_margin", round(v.p99Margin(), 4));
        node.put("p99_target_ms", round(v.p99TargetMs(), 1));
        node.put("p99_target_out_of_reach", v.p99TargetOutOfReach());
        node.put("hit_rate_share_of_bound", round(v.hitRateShare(), 4));
        node.put("meets_p99", v.meetsP99());
        node.put("meets_p50", v.meetsP50());
        node.put("meets_hit_rate", v.meetsHitRate());
        node.put("completed_all", v.completedAll());
        node.put("passed", v.passed());
    }

    public static void write(BenchReport report, Path path) {
        writeJson(toJson(report), path);
    }

    /** Writes {@code root} to {@code path}, indented, creating its folder. */
    public static void writeJson(ObjectNode root, Path path) {
        try {
            Path parent = path.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            JSON.writeValue(path.toFile(), root);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path + ": " + e.getMessage(), e);
        }
    }

    private static ObjectNode policy(PolicyResult r) {
        ObjectNode node = JSON.createObjectNode();
        node.put("completed", r.completed());
        node.put("rejected", r.rejected());
        node.put("failed", r.failed());
        latency(node.putObject("ttft_ms"), r.ttftMs(), true);
        latency(node.putObject("e2e_ms"), r.e2eMs(), false);
        latency(node.putObject("ttft_excess_ms"), r.ttftExcessMs(), true);
        ObjectNode slowdown = node.putObject("slowdown");
        slowdown.put("p50", round(r.slowdown().p50(), 3));
        slowdown.put("p99", round(r.slowdown().p99(), 3));
        node.put("prefix_hit_rate", round(r.prefixHitRate(), 4));
        node.put("preemptions", r.preemptions());
        node.put("goodput_rps", round(r.goodputRps(), 3));
        node.put("throughput_tokens_s", round(r.throughputTokensS(), 1));
        node.put("makespan_s", round(r.makespanS(), 3));
        node.put("gpu_busy", round(r.gpuBusy(), 4));
        node.put("parked", r.parked());
        ObjectNode regions = node.putObject("requests_per_region");
        r.requestsPerRegion().forEach(regions::put);
        EstimateError error = r.ttftEstimateError();
        if (error.present()) {
            ObjectNode e = node.putObject("ttft_estimate_error_ms");
            e.put("bias", round(error.biasMs(), 1));
            e.put("mean_abs", round(error.meanAbsMs(), 1));
            e.put("p90_abs", round(error.p90AbsMs(), 1));
            e.put("decisions", error.decisions());
            error.biasByTenthMs().forEach(v -> e.withArray("bias_by_tenth").add(round(v, 1)));
            error.meanAbsByTenthMs().forEach(v -> e.withArray("mean_abs_by_tenth").add(round(v, 1)));
        }
        return node;
    }

    private static void latency(ObjectNode node, Latency latency, boolean withP90) {
        node.put("p50", latency.p50());
        if (withP90) {
            node.put("p90", latency.p90());
        }
        node.put("p99", latency.p99());
        node.put("mean", round(latency.mean(), 1));
    }

    private static double round(double value, int digits) {
        double scale = Math.pow(10, digits);
        return Math.round(value * scale) / scale;
    }
}
