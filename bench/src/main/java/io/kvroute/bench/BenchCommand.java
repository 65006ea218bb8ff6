package io.kvroute.bench;

import io.kvroute.bench.report.BenchReport;
import io.kvroute.bench.report.Charts;
import io.kvroute.bench.report.ComparisonTable;
import io.kvroute.bench.report.JsonReport;
import io.kvroute.bench.report.ScenarioReport;
import io.kvroute.bench.scenario.ScenarioResult;
import io.kvroute.bench.scenario.Scenarios;
import io.kvroute.bench.sim.Bounds;
import io.kvroute.bench.sim.EngineProfile;
import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.bench.sim.PolicyResult;
import io.kvroute.bench.sim.SimConfig;
import io.kvroute.bench.sim.TelemetryMode;
import io.kvroute.bench.suite.Suite;
import io.kvroute.bench.suite.SuiteWorkload;
import io.kvroute.bench.sim.Simulator;
import io.kvroute.bench.trace.ConversationWorkload;
import io.kvroute.bench.trace.TenantResidency;
import io.kvroute.bench.trace.TenantWorkload;
import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.bench.trace.Traces;
import io.kvroute.router.routing.Policies;
import io.kvroute.router.routing.RoutingSettings;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvroute bench}: replays a trace through routing policies in the discrete-event simulator
 * and compares them: a table on stdout, optionally JSON and PNG plots. The defaults (fleet, load
 * scale per format) put the fleet near saturation, where policies differ. With {@code --scenario}
 * it runs a named admission / multi-region scenario instead ({@link Scenarios}).
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Compare routing policies on a trace in the discrete-event simulator (virtual time).")
public final class BenchCommand implements Callable<Integer> {
    /**
     * Default load scale (arrival-rate multiplier) of a Mooncake trace on the default fleet: the
     * GPUs run 92-96 % busy under the prefix-aware policies and round-robin's p99 TTFT is over 10x
     * its p50, so policies differ. (Without the host KV tier the same point was at 2.0.)
     */
    public static final double DEFAULT_MOONCAKE_LOAD_SCALE = 3.0;
    /** Default load scale of an Azure trace on the default fleet. */
    public static final double DEFAULT_AZURE_LOAD_SCALE = 30.0;
    /** Default load scale of the generated tenant workload (its rate is already near saturation). */
    public static final double DEFAULT_TENANTS_LOAD_SCALE = 1.0;
    public static final int DEFAULT_TENANT_REQUESTS = 3_000;
    public static final int DEFAULT_TENANTS = 150;
    /**
     * Default arrival rate of the generated tenant workload, near saturation as issue 3 defines it:
     * round-robin's p99 TTFT is 5.7x its p50 at seed 42 (at least 5x on five of seeds 1-5 and 42).
     * At 40 req/s round-robin is past saturation: its p50 is 2.8 s and its p99 only 3.3x that.
     */
    public static final double DEFAULT_TENANT_RATE = 38.0;
    public static final int DEFAULT_THREADS = 2;

    @Spec
    CommandSpec spec;

    @Option(names = "--scenario", paramLabel = "NAME", description = "Run a named scenario instead of a trace comparison: "
            + "region-outage, noisy-neighbour, provider-429 or all (uses --seed and --json only).")
    String scenario;

    @Option(names = "--trace", paramLabel = "PATH", description = "Trace file (Mooncake JSONL or Azure CSV); not needed for --format tenants.")
    Path trace;

    @Option(names = "--format", paramLabel = "FORMAT", description = "mooncake, azure, tenants or conversation (default: from the file name: .csv = azure, else mooncake).")
    String format;

    @Option(names = "--requests", paramLabel = "N", description = "Use the first N requests of the trace (tenants: generate N, default " + DEFAULT_TENANT_REQUESTS
            + "; conversation: N turns, default " + ConversationWorkload.DEFAULT_REQUESTS + ").")
    Integer requests;

    @Option(names = "--policies", paramLabel = "all|a,b", defaultValue = "all", description = "Policies to compare (default: all: kvroute and the eight baselines of BASELINES.md; variants such as "
            + "sglang-cache-aware-lib only by name).")
    String policies;

    @Option(names = "--fleet", paramLabel = "SPEC", defaultValue = FleetSpec.DEFAULT, description = "Pools of GPUs as region=gpus@delayMs[:engine],... ; a pool "
            + "without :engine runs --engine, and a region may hold pools of several engines at one delay, e.g. "
            + "us-east=4@5:llama-8b-h100,us-east=2@5:llama-8b-a100 (default: ${DEFAULT-VALUE}).")
    String fleet;

    @Option(names = "--load-scale", paramLabel = "X", description = "Arrival-rate multiplier (default per format: mooncake " + DEFAULT_MOONCAKE_LOAD_SCALE
            + ", azure " + DEFAULT_AZURE_LOAD_SCALE + ", tenants " + DEFAULT_TENANTS_LOAD_SCALE + ", conversation 1.0).")
    Double loadScale;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "42", description = "Seed of randomised policies, telemetry phases and generated workloads (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--seeds", paramLabel = "SEED", split = ",", description = "Run once per seed (instead of --seed) and end "
            + "with each seed's verdict on the routing-quality claim; --json then writes {\"runs\": [...]}; no --plot.")
    List<Long> seeds;

    @Option(names = "--json", paramLabel = "PATH", description = "Write the results as JSON.")
    Path json;

    @Option(names = "--plot", paramLabel = "DIR", description = "Write PNG plots (TTFT CDF, hit rate vs bound) into DIR.")
    Path plot;

    @Option(names = "--slo-ms", paramLabel = "MS", defaultValue = "2000", description = "TTFT SLO for goodput (default: ${DEFAULT-VALUE} ms).")
    long sloMs;

    @Option(names = "--dispatch-latency-ms", paramLabel = "MS", defaultValue = "20", description = "Decision to worker (Kafka EOS commit + dispatch) (default: ${DEFAULT-VALUE}).")
    long dispatchLatencyMs;

    @Option(names = "--telemetry-interval-ms", paramLabel = "MS", defaultValue = "250", description = "Worker telemetry interval (default: ${DEFAULT-VALUE}).")
    long telemetryIntervalMs;

    @Option(names = "--engine", paramLabel = "PROFILE", defaultValue = "llama-8b-h100", description = "Simulated GPU of pools that name none, and the router's TTFT model: "
            + "llama-8b-h100, llama-8b-a100 or llama-70b-4xh100 (default: ${DEFAULT-VALUE}). --kv-blocks, --host-kv-blocks "
            + "and --no-kv-events apply to every pool.")
    String engine;

    @Option(names = "--telemetry", paramLabel = "MODE", defaultValue = "observable", description = "What workers tell the router: "
            + "observable (what a worker in front of a real server can, no KV events) or white-box (also what only the simulator "
            + "knows, and KV events; labelled so, never a verdict) (default: ${DEFAULT-VALUE}).")
    String telemetry;

    @Option(names = "--router-engine", paramLabel = "PROFILE|none", defaultValue = "none", description = "The engine profile the "
            + "router starts from before finished runs teach it each pool's speed, or none (default: ${DEFAULT-VALUE}).")
    String routerEngine;

    @Option(names = "--kv-blocks", paramLabel = "PAGES", description = "Override the engine's KV pool (pages of 16 tokens; default: the profile's, 26000 for llama-8b-h100).")
    Integer kvBlocks;

    @Option(names = "--host-kv-blocks", paramLabel = "PAGES", description = "Override the host-DRAM prefix tier (pages of 16 tokens; 0 = none; default: the profile's, "
            + EngineProfile.HOST_KV_PAGES_PER_GPU + " for llama-8b-h100).")
    Integer hostKvBlocks;

    @Option(names = "--router-instances", paramLabel = "N", defaultValue = "1", description = "Router instances sharing the requests "
            + "(each routes its own requests partitions) (default: ${DEFAULT-VALUE}).")
    int routerInstances;

    @Option(names = "--isolated-routers", description = "With --router-instances above 1: each instance knows only its own "
            + "placements instead of following the others' decisions.")
    boolean isolatedRouters;

    @Option(names = "--no-kv-events", description = "Workers publish no KV events, as OpenAI-compatible servers (vLLM, SGLang) "
            + "behind kvroute do today: the router knows only where it sent each prompt.")
    boolean noKvEvents;

    @Option(names = "--candidate-sample", paramLabel = "N", description = "In a fleet of more than N GPUs a decision "
            + "evaluates the prefix's holders plus a sample of N others (the router's router.candidate.sample.size; default: "
            + RoutingSettings.DEFAULT_CANDIDATE_SAMPLE_SIZE + ").")
    Integer candidateSample;

    @Option(names = "--tenants", paramLabel = "N", defaultValue = "150", description = "tenants format: number of tenants (default: ${DEFAULT-VALUE}).")
    int tenants;

    @Option(names = "--tenant-rate", paramLabel = "RPS", defaultValue = "" + DEFAULT_TENANT_RATE, description = "tenants format: arrival rate before load scaling (default: ${DEFAULT-VALUE}/s).")
    double tenantRate;

    @Option(names = "--tenant-residency", paramLabel = "SPEC", description = "tenants format: keep tenants in regions, "
            + "in order: eu-west=28,us-east keeps tenants 0-27 in eu-west and the rest in us-east (a region without a count "
            + "takes the rest, last). For what a residency rule costs, or to set a policy against a split chosen by hand.")
    String tenantResidency;

    private TenantResidency residency = TenantResidency.NONE;

    @Option(names = "--session-rate", paramLabel = "PER_S", description = "conversation format: new sessions per second before "
            + "load scaling (default: " + ConversationWorkload.Spec.DEFAULT_SESSIONS_PER_SECOND + "; docs/bench/conversation.md).")
    Double sessionRate;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "2", description = "Policies simulated in parallel (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--suite", description = "Run the whole grid and print one verdict table: every workload (Mooncake, both Azure "
            + "traces, tenants, conversations) at the three loads where round-robin keeps the fleet 85, 92 and 97 %% busy while requests arrive, over "
            + "--seeds (default 42,1,2,3,4,5), --policies, observable telemetry, routers starting from no engine profile; "
            + "then kvroute on a fleet of two GPU kinds from the right, a wrong and no profile. About 5 minutes on 2 cores.")
    boolean suite;

    @Option(names = "--trace-dir", paramLabel = "DIR", description = "With --suite: where the real traces are "
            + "(mooncake_fast25_synthetic/, azure_llm_inference_2023/); a trace not there is skipped and said so "
            + "(default: the project's traces folder).")
    Path traceDir;

    @Option(names = "--workloads", paramLabel = "a,b", split = ",", description = "With --suite: only these workloads "
            + "(mooncake, azure-code, azure-conv, tenants, conversation).")
    List<String> workloads;

    public static void main(String[] args) {
        System.exit(new CommandLine(new BenchCommand()).execute(args));
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (scenario != null) {
            return runScenarios(out);
        }
        if (suite) {
            return runSuite(out);
        }
        String fmt = resolveFormat();
        double scale = loadScale != null ? loadScale : defaultLoadScale(fmt);
        if (!(scale > 0) || threads < 1 || (requests != null && requests < 1) || !(tenantRate > 0) || tenants < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--load-scale, --tenant-rate must be > 0 and --threads, "
                    + "--requests, --tenants at least 1; were " + scale + ", " + tenantRate + ", " + threads + ", " + requests + ", " + tenants);
        }
        if (tenantResidency != null && !fmt.equals("tenants")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--tenant-residency is for --format tenants, not " + fmt);
        }
        residency = parseResidency(); // a bad share fails here, before any run
        List<String> names = policyNames(policies);
        if (seeds != null && (seeds.isEmpty() || plot != null || spec.commandLine().getParseResult().hasMatchedOption("--seed"))) {
            throw new CommandLine.ParameterException(spec.commandLine(), seeds.isEmpty() ? "--seeds needs at least one seed"
                    : plot != null ? "--plot draws one run: use --seed with it, not --seeds" : "give --seed or --seeds, not both");
        }
        List<BenchReport> reports = new ArrayList<>();
        for (long runSeed : seeds != null ? seeds : List.of(seed)) {
            SimConfig config = config(runSeed);
            List<TraceRequest> requestsToRun;
            try {
                requestsToRun = Traces.scaleLoad(loadTrace(fmt, runSeed), scale);
            } catch (IllegalArgumentException | UncheckedIOException e) {
                spec.commandLine().getErr().println("cannot use the trace: " + e.getMessage());
                return 1;
            }
            long started = System.nanoTime();
            Map<String, PolicyResult> results = Simulator.runAll(names, requestsToRun, config, threads);
            Bounds bounds = Bounds.compute(requestsToRun, config);
            double seconds = (System.nanoTime() - started) / 1e9;
            BenchReport report = new BenchReport(Traces.GENERATED.contains(fmt) ? generatedName() : trace.toString(), fmt, requestsToRun.size(),
                    config.fleet().toString(), config.engine().name(), scale, runSeed, sloMs, config.routing().candidateSampleSize(),
                    results, bounds, config.telemetry().label(), routerEngine);
            reports.add(report);
            out.print(ComparisonTable.format(report));
            if (routerInstances > 1) {
                out.printf(Locale.ROOT, "%d router instances, %s%n", routerInstances,
                        isolatedRouters ? "each knowing only its own placements" : "each following the others' decisions");
            }
            out.printf(Locale.ROOT, "simulated %d policies in %.1f s%n", names.size(), seconds);
        }
        if (seeds != null) {
            out.println();
            out.print(ComparisonTable.verdicts(reports));
        }
        if (json != null) {
            if (seeds != null) {
                JsonReport.writeRuns(reports, json);
            } else {
                JsonReport.write(reports.get(0), json);
            }
            out.println("wrote " + json);
        }
        if (plot != null) {
            Charts.write(reports.get(0), plot).forEach(p -> out.println("wrote " + p));
        }
        out.flush();
        return 0;
    }

    private int runScenarios(PrintWriter out) {
        List<String> names;
        if (scenario.equalsIgnoreCase("all")) {
            names = Scenarios.names();
        } else if (Scenarios.names().contains(scenario)) {
            names = List.of(scenario);
        } else {
            throw new CommandLine.ParameterException(spec.commandLine(), "unknown scenario '" + scenario + "', known: "
                    + Scenarios.names() + " or all");
        }
        List<ScenarioResult> results = new java.util.ArrayList<>();
        for (String name : names) {
            long started = System.nanoTime();
            ScenarioResult result = Scenarios.named(name).run(seed);
            results.add(result);
            result.lines().forEach(out::println);
            out.printf(Locale.ROOT, "simulated %s in %.1f s%n%n", name, (System.nanoTime() - started) / 1e9);
        }
        if (json != null) {
            ScenarioReport.write(results, seed, json);
            out.println("wrote " + json);
        }
        out.flush();
        return 0;
    }

    private TenantResidency parseResidency() {
        if (tenantResidency == null) {
            return TenantResidency.NONE;
        }
        try {
            return TenantResidency.parse(tenantResidency, tenants, FleetSpec.parse(fleet).gpusByRegion().keySet());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private String generatedName() {
        return tenantResidency == null ? "generated" : "generated with --tenant-residency " + residency;
    }

    private SimConfig config(long runSeed) {
        try {
            EngineProfile profile = EngineProfile.named(engine);
            SimConfig config = SimConfig.defaults()
                    .withFleet(FleetSpec.parse(fleet))
                    .withEngine(engine(profile))
                    .withSeed(runSeed)
                    .withSloMs(sloMs)
                    .withDispatchLatencyMs(dispatchLatencyMs)
                    .withTelemetryIntervalMs(telemetryIntervalMs)
                    .withRouters(new SimConfig.Routers(routerInstances, isolatedRouters))
                    .withTelemetry(TelemetryMode.parse(telemetry));
            config = config.withRouting(config.routing().withEngineModel(
                    BenchReport.NO_ROUTER_ENGINE.equals(routerEngine) ? null : EngineProfile.named(routerEngine).routerModel()));
            if (candidateSample == null) {
                return config;
            }
            if (candidateSample < 1) {
                throw new IllegalArgumentException("--candidate-sample must be at least 1, was " + candidateSample);
            }
            return config.withRouting(config.routing().withCandidateSampleSize(candidateSample));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private int runSuite(PrintWriter out) {
        Path dir = traceDir != null ? traceDir : Path.of(System.getProperty("kvroute.home", "."), "traces");
        List<String> skipped = new ArrayList<>();
        List<SuiteWorkload> all = SuiteWorkload.all(dir, skipped);
        List<SuiteWorkload> chosen = all;
        if (workloads != null) {
            List<String> known = List.of("mooncake", "azure-code", "azure-conv", "tenants", "conversation");
            for (String w : workloads) {
                if (!known.contains(w)) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "unknown workload '" + w + "', known: " + known);
                }
            }
            chosen = all.stream().filter(w -> workloads.contains(w.name())).toList();
        }
        Suite.Result result;
        try {
            result = new Suite(config(seed), policyNames(policies), seeds != null ? seeds : Suite.DEFAULT_SEEDS, threads, out)
                    .run(chosen, skipped);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        out.println();
        out.print(Suite.table(result));
        if (json != null) {
            Suite.writeJson(result, json);
            out.println("wrote " + json);
        }
        out.flush();
        return 0;
    }

    private String resolveFormat() {
        if (format != null) {
            String f = format.toLowerCase(Locale.ROOT);
            if (!Traces.FORMATS.contains(f)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--format must be one of " + Traces.FORMATS + ", was '" + format + "'");
            }
            if (!Traces.GENERATED.contains(f) && trace == null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--trace is required for --format " + f);
            }
            return f;
        }
        if (trace == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--trace is required unless --format tenants or conversation");
        }
        return trace.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".csv") ? "azure" : "mooncake";
    }

    static double defaultLoadScale(String format) {
        return switch (format) {
            case "azure" -> DEFAULT_AZURE_LOAD_SCALE;
            case "tenants" -> DEFAULT_TENANTS_LOAD_SCALE;
            case "conversation" -> 1.0;
            default -> DEFAULT_MOONCAKE_LOAD_SCALE;
        };
    }

    private List<TraceRequest> loadTrace(String fmt, long runSeed) {
        if (fmt.equals("conversation")) {
            ConversationWorkload.Spec conversation = ConversationWorkload.Spec.defaults(
                    requests != null ? requests : ConversationWorkload.DEFAULT_REQUESTS, runSeed);
            return ConversationWorkload.generate(sessionRate == null ? conversation : conversation.withSessionsPerSecond(sessionRate));
        }
        if (fmt.equals("tenants")) {
            int n = requests != null ? requests : DEFAULT_TENANT_REQUESTS;
            TenantWorkload.Spec defaults = TenantWorkload.Spec.llmdDefaults(n, tenantRate, runSeed);
            return TenantWorkload.generate(new TenantWorkload.Spec(tenants, defaults.prefixTokens(), defaults.queryTokens(),
                    defaults.meanOutputTokens(), tenantRate, n, runSeed), residency);
        }
        if (!Files.isReadable(trace)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "cannot read trace " + trace);
        }
        return Traces.load(trace, fmt, requests != null ? requests : Integer.MAX_VALUE);
    }

    private List<String> policyNames(String value) {
        if (value.equalsIgnoreCase("all")) {
            return Policies.names();
        }
        List<String> names = Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        for (String name : names) {
            if (!Policies.exists(name)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "unknown policy '" + name + "', known: " + Policies.allNames());
            }
        }
        if (names.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--policies names no policy");
        }
        return names;
    }

    private EngineProfile engine(EngineProfile profile) {
        EngineProfile sized = kvBlocks == null ? profile : profile.withKvBlocks(kvBlocks);
        EngineProfile withHost = hostKvBlocks == null ? sized : sized.withHostKvBlocks(hostKvBlocks);
        return noKvEvents ? withHost.withoutKvEvents() : withHost;
    }
}
