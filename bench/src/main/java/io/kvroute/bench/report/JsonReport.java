package io.kvroute.bench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvroute.bench.sim.Latency;
import io.kvroute.bench.sim.PolicyResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The bench report as JSON: top level {@code trace, format, requests, fleet, engine, load_scale,
 * seed, slo_ms}, then {@code policies} (name → completed, rejected, failed, ttft_ms {p50,p90,p99,mean},
 * e2e_ms {p50,p99,mean}, prefix_hit_rate, preemptions, goodput_rps, throughput_tokens_s, makespan_s, gpu_busy, parked,
 * requests_per_region) and {@code bounds} (prefix_hit_rate_upper, ttft_oracle_ms {p50,p90,p99,mean}).
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
        root.put("load_scale", report.loadScale());
        root.put("seed", report.seed());
        root.put("slo_ms", report.sloMs());
        ObjectNode policies = root.putObject("policies");
        report.policies().forEach((name, r) -> policies.set(name, policy(r)));
        ObjectNode bounds = root.putObject("bounds");
        bounds.put("prefix_hit_rate_upper", round(report.bounds().prefixHitRateUpper(), 4));
        latency(bounds.putObject("ttft_oracle_ms"), report.bounds().ttftOracleMs(), true);
        return root;
    }

    public static void write(BenchReport report, Path path) {
        try {
            Path parent = path.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            JSON.writeValue(path.toFile(), toJson(report));
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
        node.put("prefix_hit_rate", round(r.prefixHitRate(), 4));
        node.put("preemptions", r.preemptions());
        node.put("goodput_rps", round(r.goodputRps(), 3));
        node.put("throughput_tokens_s", round(r.throughputTokensS(), 1));
        node.put("makespan_s", round(r.makespanS(), 3));
        node.put("gpu_busy", round(r.gpuBusy(), 4));
        node.put("parked", r.parked());
        ObjectNode regions = node.putObject("requests_per_region");
        r.requestsPerRegion().forEach(regions::put);
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
