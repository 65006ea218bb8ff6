package io.kvroute.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvroute.bench.report.Charts;
import io.kvroute.bench.trace.TenantWorkload;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import io.kvroute.bench.BenchCli.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchCommandTest {
    @TempDir
    Path dir;

    @Test
    void shouldWriteValidJsonAndPngPlotsForGeneratedTenants() throws Exception {
        Path json = dir.resolve("out/bench.json");
        Path plots = dir.resolve("plots");

        Run run = BenchCli.run("--format", "tenants", "--requests", "300", "--tenant-rate", "20", "--policies", "kvroute,round-robin",
                "--fleet", "a=2@5,b=1@30", "--seed", "3", "--json", json.toString(), "--plot", plots.toString(), "--slo-ms", "500");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("kvroute", "round-robin", "prefix_hit_rate_upper");
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertThat(root.path("format").asText()).isEqualTo("tenants");
        assertThat(root.path("fleet").asText()).isEqualTo("a=2@5,b=1@30");
        assertThat(root.path("seed").asLong()).isEqualTo(3);
        assertThat(root.path("slo_ms").asLong()).isEqualTo(500);
        assertThat(root.path("load_scale").asDouble()).isEqualTo(1.0);
        assertThat(root.path("policies").size()).isEqualTo(2);
        for (String policy : List.of("kvroute", "round-robin")) {
            JsonNode p = root.path("policies").path(policy);
            assertThat(p.path("completed").asInt()).isEqualTo(300);
            assertThat(p.path("ttft_ms").path("p50").asDouble()).isPositive();
            assertThat(p.path("ttft_ms").path("p99").asDouble()).isGreaterThanOrEqualTo(p.path("ttft_ms").path("p90").asDouble());
            assertThat(p.path("e2e_ms").has("p99")).isTrue();
            assertThat(p.path("prefix_hit_rate").asDouble()).isBetween(0.0, root.path("bounds").path("prefix_hit_rate_upper").asDouble());
            assertThat(p.has("preemptions")).isTrue();
            assertThat(p.path("goodput_rps").asDouble()).isPositive();
            assertThat(p.path("throughput_tokens_s").asDouble()).isPositive();
            assertThat(p.path("requests_per_region").path("a").asInt() + p.path("requests_per_region").path("b").asInt()).isEqualTo(300);
        }
        assertThat(root.path("bounds").path("ttft_oracle_ms").path("p99").asDouble()).isPositive();
        for (String png : List.of(Charts.TTFT_CDF, Charts.HIT_RATE)) {
            BufferedImage image = ImageIO.read(plots.resolve(png).toFile());
            assertThat(image).as(png).isNotNull();
            assertThat(image.getWidth()).isGreaterThan(500);
        }
    }

    @Test
    void shouldReportTheDeploymentItSimulated() throws Exception {
        Path json = dir.resolve("no-events.json");

        Run run = BenchCli.run("--format", "tenants", "--requests", "100", "--tenant-rate", "20", "--policies", "kvroute", "--fleet", "a=2@5",
                "--no-kv-events", "--router-instances", "2", "--json", json.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(new ObjectMapper().readTree(json.toFile()).path("engine").asText()).isEqualTo("llama-8b-h100/no-kv-events");
        assertThat(run.out()).contains("2 router instances, each following the others' decisions");
        assertThat(BenchCli.run("--format", "tenants", "--requests", "100", "--router-instances", "0").exitCode()).isNotZero();
    }

    @Test
    void shouldRunOncePerSeedAndEndWithEachSeedsVerdict() throws Exception {
        Path json = dir.resolve("seeds.json");

        Run run = BenchCli.run("--format", "tenants", "--requests", "200", "--tenant-rate", "20", "--policies", "kvroute,gie-weighted",
                "--fleet", "a=2@5", "--seeds", "3,4", "--json", json.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("seed 3, TTFT SLO", "seed 4, TTFT SLO", "seed 3: kvroute vs best baselines",
                "seed 4: kvroute vs best baselines").containsPattern("routing-quality claim met on [0-2] of 2 seeds");
        JsonNode runs = new ObjectMapper().readTree(json.toFile()).path("runs");
        assertThat(runs.size()).isEqualTo(2);
        assertThat(runs.get(0).path("seed").asLong()).isEqualTo(3);
        assertThat(runs.get(1).path("seed").asLong()).isEqualTo(4);
        assertThat(runs.get(1).path("verdict").path("best_p99_baseline").asText()).isEqualTo("gie-weighted");
        assertThat(runs.get(1).path("verdict").has("passed")).isTrue();
        assertThat(runs.get(0).path("policies").path("kvroute").path("ttft_ms").path("p99").asDouble())
                .as("the generated workload differs by seed").isNotEqualTo(runs.get(1).path("policies").path("kvroute").path("ttft_ms")
                        .path("p99").asDouble());
    }

    @Test
    void shouldRefusePlotsOrASingleSeedWithSeveralSeeds() {
        Run run = BenchCli.run("--format", "tenants", "--seeds", "1,2", "--plot", dir.resolve("p").toString());

        assertThat(run.exitCode()).isNotZero();
        assertThat(run.err()).contains("--plot draws one run");
        Run both = BenchCli.run("--format", "tenants", "--seeds", "1,2", "--seed", "3");
        assertThat(both.exitCode()).isNotZero();
        assertThat(both.err()).contains("not both");
    }

    @Test
    void shouldReadATraceFileGuessingItsFormat() throws Exception {
        Path trace = dir.resolve("t.jsonl");
        Files.writeString(trace, """
                {"timestamp": 0, "input_length": 600, "output_length": 3, "hash_ids": [0, 1]}
                {"timestamp": 100, "input_length": 700, "output_length": 2, "hash_ids": [0, 2]}
                """);

        Run run = BenchCli.run("--trace", trace.toString(), "--policies", "least-queue", "--load-scale", "1");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("mooncake, 2 requests", "least-queue");
    }

    @Test
    void shouldSampleCandidatesInAFleetLargerThanTheSampleAndSaySo() throws Exception {
        Path json = dir.resolve("sampled.json");

        Run sampled = BenchCli.run("--format", "tenants", "--requests", "200", "--policies", "kvroute", "--fleet", "a=6@5,b=2@30",
                "--candidate-sample", "3", "--json", json.toString());
        Run whole = BenchCli.run("--format", "tenants", "--requests", "200", "--policies", "kvroute", "--fleet", "a=6@5,b=2@30");

        assertThat(sampled.exitCode()).as(sampled.err()).isZero();
        assertThat(sampled.out()).contains("plus 3 other GPUs drawn at random");
        assertThat(new ObjectMapper().readTree(json.toFile()).path("candidate_sample_size").asInt()).isEqualTo(3);
        assertThat(whole.out()).doesNotContain("drawn at random");
        Run refused = BenchCli.run("--format", "tenants", "--candidate-sample", "0");
        assertThat(refused.exitCode()).isNotZero();
        assertThat(refused.err()).contains("--candidate-sample must be at least 1, was 0");
    }

    @Test
    void shouldRunEveryPolicyWithTheTenantsKeptInTheRegionsAskedAndRefuseABadShare() throws Exception {
        Path json = dir.resolve("residency.json");
        long keptInB = TenantWorkload.generate(new TenantWorkload.Spec(10, 6000, 1200, 200, 20.0, 300, 3)).stream()
                .filter(r -> r.tenant().equals("tenant-0") || r.tenant().equals("tenant-1")).count();

        Run run = BenchCli.run("--format", "tenants", "--requests", "300", "--tenants", "10", "--tenant-rate", "20", "--seed", "3",
                "--policies", "kvroute,round-robin", "--fleet", "a=2@5,b=1@30", "--tenant-residency", "b=2,a", "--json", json.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("generated with --tenant-residency b=2,a");
        assertThat(keptInB).isPositive();
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        for (String policy : List.of("kvroute", "round-robin")) {
            JsonNode perRegion = root.path("policies").path(policy).path("requests_per_region");
            assertThat(perRegion.path("b").asLong()).as(policy).isEqualTo(keptInB);
            assertThat(perRegion.path("a").asLong()).as(policy).isEqualTo(300 - keptInB);
        }
        Run unknown = BenchCli.run("--format", "tenants", "--fleet", "a=2@5,b=1@30", "--tenant-residency", "c=2,a");
        assertThat(unknown.exitCode()).isNotZero();
        assertThat(unknown.err()).contains("share 'c=2' names no region of the fleet");
        Path trace = dir.resolve("r.jsonl");
        Files.writeString(trace, "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [0, 1]}\n");
        Run notTenants = BenchCli.run("--trace", trace.toString(), "--tenant-residency", "us-east");
        assertThat(notTenants.exitCode()).isNotZero();
        assertThat(notTenants.err()).contains("--tenant-residency is for --format tenants, not mooncake");
    }

    @Test
    void shouldRefuseAnUnknownPolicyOrAMissingTrace() {
        assertThat(BenchCli.run("--format", "tenants", "--policies", "nope").exitCode()).isNotZero();
        assertThat(BenchCli.run("--format", "mooncake").exitCode()).isNotZero();
        assertThat(BenchCli.run("--format", "tenants", "--fleet", "bad").exitCode()).isNotZero();
    }

    @Test
    void shouldRunANamedScenarioAndWriteItsFiguresAsJson() throws Exception {
        Path json = dir.resolve("scenario.json");

        Run run = BenchCli.run("--scenario", "provider-429", "--seed", "5", "--json", json.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("scenario provider-429", "lost: 0", "cooling down");
        JsonNode scenario = new ObjectMapper().readTree(json.toFile()).path("scenarios").path("provider-429");
        assertThat(scenario.path("lost").asInt(-1)).isZero();
        assertThat(scenario.path("rate_limited_answers").asInt()).isPositive();
        assertThat(scenario.path("ttft_ms").path("extra_for_retried_requests").has("p99")).isTrue();
    }

    @Test
    void shouldRefuseAnUnknownScenarioNamingTheKnownOnes() {
        Run run = BenchCli.run("--scenario", "meteor-strike");

        assertThat(run.exitCode()).isNotZero();
        assertThat(run.err()).contains("noisy-neighbour");
    }

    @Test
    void shouldLabelWhatTheRouterKnewAndJudgeOnlyObservableRuns() throws Exception {
        Path observable = dir.resolve("observable.json");
        Path whiteBox = dir.resolve("white-box.json");
        String[] common = {"--format", "tenants", "--requests", "300", "--tenant-rate", "20", "--policies", "kvroute,round-robin",
            "--fleet", "a=2@5"};

        Run plain = BenchCli.run(concat(common, "--json", observable.toString()));
        Run told = BenchCli.run(concat(common, "--json", whiteBox.toString(), "--telemetry", "white-box", "--router-engine", "llama-8b-h100"));

        assertThat(plain.exitCode()).as(plain.err()).isZero();
        assertThat(told.exitCode()).as(told.err()).isZero();
        assertThat(plain.out()).contains("telemetry observable, router engine none", "kvroute vs best baselines");
        assertThat(told.out()).contains("telemetry white-box (WHITE-BOX", "router engine llama-8b-h100")
                .doesNotContain("kvroute vs best baselines");
        JsonNode a = new ObjectMapper().readTree(observable.toFile());
        JsonNode b = new ObjectMapper().readTree(whiteBox.toFile());
        assertThat(a.path("telemetry").asText()).isEqualTo("observable");
        assertThat(a.path("router_engine").asText()).isEqualTo("none");
        assertThat(b.path("telemetry").asText()).isEqualTo("white-box");
        assertThat(b.path("router_engine").asText()).isEqualTo("llama-8b-h100");
        assertThat(a.path("policies").path("kvroute").path("ttft_estimate_error_ms").path("mean_abs_by_tenth").size()).isEqualTo(10);
    }

    @Test
    void shouldRefuseAnUnknownTelemetryModeOrRouterEngine() {
        Run mode = BenchCli.run("--format", "tenants", "--requests", "10", "--telemetry", "glass-box");
        Run engine = BenchCli.run("--format", "tenants", "--requests", "10", "--router-engine", "llama-405b");

        assertThat(mode.exitCode()).isNotZero();
        assertThat(mode.err()).contains("glass-box", "observable", "white-box");
        assertThat(engine.exitCode()).isNotZero();
        assertThat(engine.err()).contains("llama-405b", "llama-8b-h100");
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
