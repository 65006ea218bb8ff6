package io.kvroute.bench.suite;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvroute.bench.report.BenchReport;
import io.kvroute.bench.report.JsonReport;
import io.kvroute.bench.sim.Bounds;
import io.kvroute.bench.sim.EngineProfile;
import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.bench.sim.IdealBalancer;
import io.kvroute.bench.sim.Latency;
import io.kvroute.bench.sim.PolicyResult;
import io.kvroute.bench.sim.SimConfig;
import io.kvroute.bench.sim.Simulator;
import io.kvroute.bench.sim.TelemetryMode;
import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.bench.trace.Traces;
import io.kvroute.router.routing.KvAwarePolicy;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The bench's whole grid, one verdict table: each workload at the three loads where round-robin keeps the fleet
 * {@link #BUSY_TARGETS} busy while requests arrive (found per workload by {@link LoadCalibration} at the first seed), each seed, every
 * policy, all in observable telemetry with routers that start from no engine profile; then kvroute alone on a fleet of
 * two GPU kinds, starting from the right profile, a wrong one and none. One parameter set for everything: nothing here
 * depends on which workload runs.
 */
public final class Suite {
    public static final double[] BUSY_TARGETS = {0.85, 0.92, 0.97};
    public static final List<Long> DEFAULT_SEEDS = List.of(42L, 1L, 2L, 3L, 4L, 5L);
    /** Two GPU kinds in one region and a far region, for the wrong-profile check. */
    public static final String MIXED_FLEET = "us-east=4@5:llama-8b-h100,us-east=2@5:llama-8b-a100,eu-west=2@40:llama-8b-h100";
    public static final String RIGHT_PROFILE = "llama-8b-h100";
    public static final String WRONG_PROFILE = "llama-70b-4xh100";
    /** With the wrong profile, kvroute's p99 excess at most this times the run's from the right one (median over seeds). */
    public static final double WRONG_PROFILE_SLACK = 1.10;
    /** The load scale calibration starts from: the bench's default for each trace kind, else 1. */
    private static final Map<String, Double> CALIBRATION_START = Map.of("mooncake", 3.0, "azure-code", 30.0, "azure-conv", 30.0);

    private final SimConfig base;
    private final List<String> policies;
    private final List<Long> seeds;
    private final int threads;
    private final PrintWriter progress;

    /**
     * @param base     the fleet, engine and everything else every run shares; the suite sets observable telemetry, no
     *                 engine prior and the seed
     * @param policies kvroute and the baselines to judge it against
     */
    public Suite(SimConfig base, List<String> policies, List<Long> seeds, int threads, PrintWriter progress) {
        if (!policies.contains(KvAwarePolicy.NAME) || policies.size() < 2) {
            throw new IllegalArgumentException("the suite judges kvroute against baselines: --policies must name both, was " + policies);
        }
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("the suite needs at least one seed");
        }
        this.base = base.withTelemetry(TelemetryMode.OBSERVABLE).withRouting(base.routing().withEngineModel(null));
        this.policies = List.copyOf(policies);
        this.seeds = List.copyOf(seeds);
        this.threads = threads;
        this.progress = progress;
    }

    /** One workload at one load: the scale found for it, round-robin's busy share there, and each seed's run. */
    public record Cell(String workload, double busyTarget, double loadScale, double busyAtScale, List<BenchReport> runs,
                       CellVerdict verdict) {
    }

    /** kvroute's p99 excess on the mixed fleet per seed, from the right profile, a wrong one and none. */
    public record ProfileCheck(List<Double> rightP99ExcessMs, List<Double> wrongP99ExcessMs, List<Double> noneP99ExcessMs,
                               double loadScale) {
        public double medianWrongRatio() {
            List<Double> ratios = new ArrayList<>();
            for (int i = 0; i < rightP99ExcessMs.size(); i++) {
                ratios.add(CellVerdict.ratio(wrongP99ExcessMs.get(i), rightP99ExcessMs.get(i)));
            }
            return CellVerdict.median(ratios);
        }

        public boolean passed() {
            return medianWrongRatio() <= WRONG_PROFILE_SLACK;
        }
    }

    public record Result(List<Cell> cells, ProfileCheck profileCheck, List<String> skipped) {
        public boolean passed() {
            return cells.stream().allMatch(c -> c.verdict().passed()) && (profileCheck == null || profileCheck.passed());
        }
    }

    public Result run(List<SuiteWorkload> workloads, List<String> skipped) {
        List<Cell> cells = new ArrayList<>();
        // the profile check runs at the tenants workload's lowest load: its A100s make the mixed fleet slower
        double tenantsLowestScale = Double.NaN;
        for (SuiteWorkload workload : workloads) {
            List<TraceRequest> first = workload.requests().apply(seeds.get(0));
            LoadCalibration calibration = new LoadCalibration(first, base.withSeed(seeds.get(0)));
            for (double target : BUSY_TARGETS) {
                double scale = calibration.scaleFor(target, CALIBRATION_START.getOrDefault(workload.name(), 1.0));
                progress.printf(Locale.ROOT, "%s at %.0f %% busy: load scale %.3g (round-robin %.1f %%)%n", workload.name(),
                        100 * target, scale, 100 * calibration.busy(scale));
                progress.flush();
                List<BenchReport> runs = new ArrayList<>();
                List<Double> idealP99s = new ArrayList<>();
                for (long seed : seeds) {
                    List<TraceRequest> requests = Traces.scaleLoad(workload.requests().apply(seed), scale);
                    runs.add(run(workload, requests, seed, scale));
                    idealP99s.add(idealP99(requests, base.withSeed(seed)));
                }
                cells.add(new Cell(workload.name(), target, scale, calibration.busy(scale), runs,
                        CellVerdict.of(runs, workload.hasPrefixes(), idealP99s)));
                if (workload.name().equals("tenants") && Double.isNaN(tenantsLowestScale)) {
                    tenantsLowestScale = scale;
                }
            }
        }
        double scale = tenantsLowestScale;
        ProfileCheck check = workloads.stream().filter(w -> w.name().equals("tenants")).findFirst()
                .map(w -> profileCheck(w, scale)).orElse(null);
        return new Result(cells, check, skipped);
    }

    private BenchReport run(SuiteWorkload workload, List<TraceRequest> requests, long seed, double scale) {
        SimConfig config = base.withSeed(seed);
        Map<String, PolicyResult> results = Simulator.runAll(policies, requests, config, threads);
        BenchReport report = new BenchReport(workload.name(), workload.name(), requests.size(), config.fleet().toString(),
                config.engine().name(), scale, seed, config.sloMs(), config.routing().candidateSampleSize(), results,
                Bounds.compute(requests, config), config.telemetry().label(), BenchReport.NO_ROUTER_ENGINE);
        PolicyResult kvroute = results.get(KvAwarePolicy.NAME);
        PolicyResult best = results.values().stream().filter(r -> !r.policy().equals(KvAwarePolicy.NAME))
                .min(Comparator.comparingDouble(r -> r.ttftExcessMs().p99())).orElseThrow();
        progress.printf(Locale.ROOT, "  seed %d: excess p50/p99 kvroute %.0f/%.0f ms, %s %.0f/%.0f ms%n", seed,
                kvroute.ttftExcessMs().p50(), kvroute.ttftExcessMs().p99(), best.policy(), best.ttftExcessMs().p50(),
                best.ttftExcessMs().p99());
        progress.flush();
        return report;
    }

    /** The idealised balancer's p99 excess, in the order of the three that gives the lowest. */
    static double idealP99(List<TraceRequest> requests, SimConfig config) {
        double lowest = Double.POSITIVE_INFINITY;
        for (IdealBalancer.Order order : IdealBalancer.Order.values()) {
            lowest = Math.min(lowest, Latency.of(IdealBalancer.excessMs(requests, config, order)).p99());
        }
        return lowest;
    }

    /** kvroute on {@link #MIXED_FLEET} at the tenants workload's lowest load, from each starting profile. */
    private ProfileCheck profileCheck(SuiteWorkload tenants, double scale) {
        List<Double> right = new ArrayList<>();
        List<Double> wrong = new ArrayList<>();
        List<Double> none = new ArrayList<>();
        SimConfig mixed = base.withFleet(FleetSpec.parse(MIXED_FLEET));
        for (long seed : seeds) {
            List<TraceRequest> requests = Traces.scaleLoad(tenants.requests().apply(seed), scale);
            SimConfig config = mixed.withSeed(seed);
            right.add(excessP99(requests, config.withRouting(config.routing().withEngineModel(EngineProfile.named(RIGHT_PROFILE).routerModel()))));
            wrong.add(excessP99(requests, config.withRouting(config.routing().withEngineModel(EngineProfile.named(WRONG_PROFILE).routerModel()))));
            none.add(excessP99(requests, config));
            progress.printf(Locale.ROOT, "mixed fleet, seed %d: kvroute p99 excess %.0f (right) / %.0f (wrong) / %.0f (none) ms%n",
                    seed, right.get(right.size() - 1), wrong.get(wrong.size() - 1), none.get(none.size() - 1));
            progress.flush();
        }
        return new ProfileCheck(right, wrong, none, scale);
    }

    private static double excessP99(List<TraceRequest> requests, SimConfig config) {
        return Simulator.runAll(List.of(KvAwarePolicy.NAME), requests, config, 1).get(KvAwarePolicy.NAME).ttftExcessMs().p99();
    }

    /** The verdict table: a row per workload and load, then the profile check and the overall verdict. */
    public static String table(Result result) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-13s %5s %8s %6s %18s %8s %12s %10s %-20s %s%n", "workload", "busy", "scale", "rr",
                "p99 excess ratio", "ideal", "p50 slack", "hit/bound", "best baseline (p99)", "verdict"));
        out.append(String.format(Locale.ROOT, "%-13s %5s %8s %6s %18s %8s %12s %10s %-20s %s%n", "", "", "", "busy",
                "median / worst", "median", "median ms", "median", "most seeds", ""));
        out.append("(busy: round-robin's share of GPU time in steps while requests arrive, target and found;\n"
                + " ideal: an idealised balancer's p99 excess over the best baseline's, in the best of three orders: how low placement could go)\n");
        for (Cell c : result.cells()) {
            CellVerdict v = c.verdict();
            out.append(String.format(Locale.ROOT, "%-13s %4.0f%% %8.3g %5.1f%% %8.2f / %-7.2f %8.2f %12.1f %10s %-20s %s%n", c.workload(),
                    100 * c.busyTarget(), c.loadScale(), 100 * c.busyAtScale(), v.medianP99Ratio(), v.worstP99Ratio(),
                    v.medianIdealRatio(), v.medianP50Slack(), v.hasPrefixes() ? String.format(Locale.ROOT, "%.0f %%", 100 * v.medianHitShare()) : "-",
                    mostCommon(v.bestBaselines()), v.passed() ? "MET" : "NOT MET (" + failures(v) + ")"));
        }
        ProfileCheck p = result.profileCheck();
        if (p != null) {
            out.append(String.format(Locale.ROOT, "mixed fleet %s, tenants at load scale %.3g: kvroute p99 excess median %.0f ms from %s, "
                            + "%.0f from %s (x%.2f, at most x%.2f: %s), %.0f from none%n", MIXED_FLEET, p.loadScale(),
                    CellVerdict.median(p.rightP99ExcessMs()), RIGHT_PROFILE, CellVerdict.median(p.wrongP99ExcessMs()), WRONG_PROFILE,
                    p.medianWrongRatio(), WRONG_PROFILE_SLACK, p.passed() ? "met" : "NOT MET", CellVerdict.median(p.noneP99ExcessMs())));
        }
        result.skipped().forEach(s -> out.append("skipped: ").append(s).append('\n'));
        long met = result.cells().stream().filter(c -> c.verdict().passed()).count();
        out.append(String.format(Locale.ROOT, "suite: %d of %d cells met%s -> %s%n", met, result.cells().size(),
                p == null ? "" : ", profile check " + (p.passed() ? "met" : "not met"), result.passed() ? "PASSED" : "NOT PASSED"));
        out.append(String.format(Locale.ROOT, "criteria: p99 excess ratio <= %.1f median and <= %.1f every seed; p50 excess <= best "
                        + "baseline's + %.0f ms; hit rate >= %.0f %% of the bound where the trace has prefixes; every request completed%n",
                CellVerdict.P99_MEDIAN_RATIO, CellVerdict.P99_WORST_RATIO, CellVerdict.P50_SLACK_MS, 100 * CellVerdict.HIT_SHARE));
        return out.toString();
    }

    private static String failures(CellVerdict v) {
        List<String> f = new ArrayList<>();
        if (!v.p99Met()) {
            f.add("p99");
        }
        if (!v.p50Met()) {
            f.add("p50");
        }
        if (!v.hitMet()) {
            f.add("hit");
        }
        if (!v.allCompleted()) {
            f.add("incomplete");
        }
        return String.join(", ", f);
    }

    private static String mostCommon(List<String> names) {
        return names.stream().reduce((a, b) -> Collections.frequency(names, a) >= Collections.frequency(names, b) ? a : b).orElse("-");
    }

    /** The whole result as JSON: per cell its scale, busy share, verdict figures and each seed's full report. */
    public static void writeJson(Result result, Path path) {
        ObjectNode root = new ObjectMapper().createObjectNode();
        ArrayNode cells = root.putArray("cells");
        for (Cell c : result.cells()) {
            ObjectNode node = cells.addObject();
            node.put("workload", c.workload());
            node.put("busy_target", c.busyTarget());
            node.put("load_scale", c.loadScale());
            node.put("round_robin_busy", c.busyAtScale());
            CellVerdict v = c.verdict();
            v.p99Ratios().forEach(r -> node.withArray("p99_excess_ratio_by_seed").add(r));
            v.p50Slacks().forEach(r -> node.withArray("p50_excess_slack_ms_by_seed").add(r));
            if (v.hasPrefixes()) {
                v.hitShares().forEach(r -> node.withArray("hit_share_of_bound_by_seed").add(r));
            }
            v.bestBaselines().forEach(b -> node.withArray("best_p99_baseline_by_seed").add(b));
            v.idealP99ExcessMs().forEach(r -> node.withArray("ideal_balancer_p99_excess_ms_by_seed").add(r));
            v.idealRatios().forEach(r -> node.withArray("ideal_balancer_p99_excess_ratio_by_seed").add(r));
            node.put("passed", v.passed());
            ArrayNode runs = node.putArray("runs");
            c.runs().forEach(r -> runs.add(JsonReport.toJson(r)));
        }
        ProfileCheck p = result.profileCheck();
        if (p != null) {
            ObjectNode check = root.putObject("profile_check");
            check.put("fleet", MIXED_FLEET);
            check.put("load_scale", p.loadScale());
            p.rightP99ExcessMs().forEach(v -> check.withArray("right_p99_excess_ms").add(v));
            p.wrongP99ExcessMs().forEach(v -> check.withArray("wrong_p99_excess_ms").add(v));
            p.noneP99ExcessMs().forEach(v -> check.withArray("none_p99_excess_ms").add(v));
            check.put("passed", p.passed());
        }
        result.skipped().forEach(s -> root.withArray("skipped").add(s));
        root.put("passed", result.passed());
        JsonReport.writeJson(root, path);
    }
}
