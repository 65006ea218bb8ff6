package io.kvroute.local.loadtest;

import io.kvroute.router.routing.Policies;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.worker.config.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kvroute loadtest}: how fast the router places a batch on a real broker, against a plain exactly-once copy of it. */
@Command(name = "loadtest", mixinStandardHelpOptions = true,
        description = "Measure routing throughput and cost on a real broker: telemetry of --workers idle fake workers, --requests "
                + "requests pre-loaded (prompt sizes and shared prefixes from the Mooncake trace), a plain exactly_once_v2 Kafka "
                + "Streams copy of the same records, then --routers router instances as separate processes. Reports routed/s "
                + "(first to last committed dispatch), the copy's records/s and the ratio, CPU per request, records and bytes "
                + "written per request per topic, decision outcomes; with --rate, append-to-dispatch latency at a fixed offered rate.")
public final class LoadtestCommand implements Callable<Integer> {
    static final String MOONCAKE = "mooncake_fast25_synthetic/synthetic_trace.jsonl";
    static final int MAX_BLOCK_TOKENS = 512;
    static final int MAX_REPEAT = 20;
    /**
     * The processes run C1 only, which compiles a method after a few thousand calls: this many leave out start-up (class
     * loading, first fetches, compiles) at a cost of a few seconds. C2, which a long-running deployment runs, needs about
     * 200,000 before the copy's code is compiled (docs/loadtest.md).
     */
    static final int DEFAULT_WARMUP_REQUESTS = 10_000;

    @Spec
    CommandSpec spec;

    @Option(names = "--requests", defaultValue = "50000", description = "Requests to route (default: ${DEFAULT-VALUE}).")
    int requests;

    @Option(names = "--workers", defaultValue = "8", description = "Idle fake workers (GPU slots), spread over us-east, eu-west and "
            + "ap-south 2:1:1 (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--gpus-per-worker", defaultValue = "8", description = "GPU slots per worker process (worker.gpus), which share its one "
            + "dispatch partition; 1: a partition per GPU (default: ${DEFAULT-VALUE}, a node of eight GPUs).")
    int gpusPerWorker;

    @Option(names = "--routers", defaultValue = "1", description = "Router instances, each a separate JVM (default: ${DEFAULT-VALUE}; "
            + "at most the requests topic's " + KvrouteTopics.DEFAULT_PARTITIONS + " partitions).")
    int routers;

    @Option(names = "--policy", defaultValue = Policies.DEFAULT, description = "Routing policy (default: ${DEFAULT-VALUE}).")
    String policy;

    @Option(names = "--rate", paramLabel = "R/s", description = "Offer the requests at this fixed rate to running routers instead of "
            + "pre-loading them, and report append-to-dispatch latency (no copy app in this mode).")
    Double rate;

    @Option(names = "--json", paramLabel = "PATH", description = "Also write the figures as JSON to this file.")
    Path json;

    @Option(names = "--bootstrap-servers", description = "Use this running cluster instead of starting a broker (needs --registry-url); "
            + "every topic and application id is then the run's own (kvroute-loadtest-<id>), and left in place.")
    String bootstrapServers;

    @Option(names = "--registry-url", description = "The schema registry's Confluent-compatible URL, with --bootstrap-servers.")
    String registryUrl;

    @Option(names = "--replication-factor", defaultValue = "1", description = "Replication of the topics created on a given cluster "
            + "(default: ${DEFAULT-VALUE}).")
    int replicationFactor;

    @Option(names = "--work-dir", description = "Where the broker, registry and processes keep data and logs (default: a new directory under .kvroute/).")
    Path workDir;

    @Option(names = "--block-tokens", defaultValue = "16", description = "Tokens each 512-token trace block becomes: prompts keep the "
            + "trace's shape and prefix groups at this scale (default: ${DEFAULT-VALUE}, about 1.9 KB of prompt per request).")
    int blockTokens;

    @Option(names = "--copy", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Run the plain exactly_once_v2 copy app over the same records first (default: ${DEFAULT-VALUE}).")
    boolean copy;

    @Option(names = "--copy-partitions", description = "Partitions of the copy's sink topic (default: as many as the requests topic has, "
            + KvrouteTopics.DEFAULT_PARTITIONS + "; as many as the router dispatches to (W / K with --gpus-per-worker K, rounded up per region) shows "
            + "what transaction markers cost a plain app).")
    Integer copyPartitions;

    @Option(names = "--transaction-version", description = "Format the run's own broker with this Kafka transaction protocol "
            + "version, 1 or 2 (default: Kafka's, 2). Version 2 adds a partition to a transaction when the broker takes its first "
            + "write, refusing it while the previous commit's markers are still being written (the write is sent again).")
    Integer transactionVersion;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Extra router setting, router.* or kafka.* (repeatable).")
    Map<String, String> settings = new LinkedHashMap<>();

    @Option(names = "--warmup-seconds", defaultValue = "10",
            description = "With --rate: the requests offered in the first this many seconds are routed but left out of the latency "
                    + "percentiles, so they measure a router that has compiled its code and settled, at a steady rate (default: ${DEFAULT-VALUE}).")
    double warmupSeconds;

    @Option(names = "--warmup-requests", paramLabel = "N", description = "Pre-loaded: this many more requests go first, copied and routed "
            + "but not measured, so both apps are measured past their start-up, their code compiled (default: "
            + DEFAULT_WARMUP_REQUESTS + "; 0 measures from a cold start). With --rate, see --warmup-seconds.")
    Integer warmupRequests;

    @Option(names = "--stall-timeout", defaultValue = "PT60S", description = "Stop a phase when nothing new was read for this long, ISO-8601 (default: ${DEFAULT-VALUE}).")
    Duration stallTimeout;

    @Option(names = "--trace", description = "The Mooncake JSONL trace whose prompt sizes and prefix blocks the requests take "
            + "(default: the project's traces/" + MOONCAKE + ").")
    Path trace;

    @Option(names = "--repeat", defaultValue = "1", description = "Run the whole test this many times in a row, each with its "
            + "own broker and copy (work dir run-1, run-2, ...), and print each run's figures and their medians: between runs of one "
            + "command on a shared machine the ratio moves by a fifth (default: ${DEFAULT-VALUE}).")
    int repeat;

    @Override
    public Integer call() throws Exception {
        LoadtestRun.Options options = options();
        List<LoadtestReport> runs = new ArrayList<>();
        for (int i = 1; i <= repeat; i++) {
            if (repeat > 1) {
                System.err.printf("kvroute loadtest: run %d of %d%n", i, repeat);
            }
            LoadtestReport report = new LoadtestRun(repeat == 1 ? options : options.inRun(i), System.err).run();
            report.printTable(System.out);
            runs.add(report);
        }
        Map<String, Object> figures = runs.get(0).toMap();
        if (repeat > 1) {
            LoadtestSeries series = new LoadtestSeries(runs);
            series.printSummary(System.out);
            figures = series.toMap();
        }
        if (json != null) {
            LoadtestReport.writeJson(json, figures);
            System.out.println("report written to " + json);
        }
        return 0;
    }

    /** The validated options; a bad flag fails here, naming the flag and the value given. */
    LoadtestRun.Options options() {
        between("--requests", requests, 1, Integer.MAX_VALUE - 1);
        between("--workers", workers, 1, 100_000);
        between("--gpus-per-worker", gpusPerWorker, 1, WorkerConfig.MAX_GPUS);
        between("--routers", routers, 1, KvrouteTopics.DEFAULT_PARTITIONS);
        between("--block-tokens", blockTokens, 1, MAX_BLOCK_TOKENS);
        if (!Policies.exists(policy)) {
            throw bad("--policy must be one of " + Policies.allNames() + ", was '" + policy + "'");
        }
        if (rate != null && !(rate > 0 && rate < 1e7)) {
            throw bad("--rate must be a number of requests per second > 0, was " + rate);
        }
        if ((bootstrapServers == null) != (registryUrl == null)) {
            throw bad(bootstrapServers == null ? "--registry-url needs --bootstrap-servers, was given alone ('" + registryUrl + "')"
                    : "--bootstrap-servers needs --registry-url (the schema registry of that cluster), was given alone ('" + bootstrapServers + "')");
        }
        if (bootstrapServers != null && bootstrapServers.isBlank()) {
            throw bad("--bootstrap-servers must be host:port[,host:port...], was '" + bootstrapServers + "'");
        }
        if (registryUrl != null && !(registryUrl.startsWith("http://") || registryUrl.startsWith("https://"))) {
            throw bad("--registry-url must start with http:// or https://, was '" + registryUrl + "'");
        }
        between("--replication-factor", replicationFactor, 1, Short.MAX_VALUE);
        if (bootstrapServers == null && replicationFactor != 1) {
            throw bad("--replication-factor applies to a given cluster (--bootstrap-servers); the run's own broker is one node, was "
                    + replicationFactor);
        }
        if (transactionVersion != null) {
            between("--transaction-version", transactionVersion, 1, 2);
        }
        if (transactionVersion != null && bootstrapServers != null) {
            throw bad("--transaction-version formats the run's own broker; a given cluster (--bootstrap-servers) keeps its own, was "
                    + transactionVersion);
        }
        int sinkPartitions = copyPartitions != null ? copyPartitions : KvrouteTopics.DEFAULT_PARTITIONS;
        between("--copy-partitions", sinkPartitions, 1, 100_000);
        if (stallTimeout.isNegative() || stallTimeout.isZero()) {
            throw bad("--stall-timeout must be positive, was " + stallTimeout);
        }
        settings.forEach((key, value) -> {
            if (!(key.startsWith("router.") || key.startsWith("kafka."))) {
                throw bad("--set takes router.* or kafka.* settings, was '" + key + "=" + value + "'");
            }
            if (List.of("router.policy", "router.regions", "router.application.id", "router.state.dir").contains(key)) {
                throw bad("--set " + key + " is the load test's own (use --policy, --workers), was '" + key + "=" + value + "'");
            }
        });
        between("--repeat", repeat, 1, MAX_REPEAT);
        if (!(warmupSeconds >= 0)) {
            throw bad("--warmup-seconds must be 0 or more, was " + warmupSeconds);
        }
        if (warmupRequests != null && rate != null) {
            throw bad("--warmup-requests applies to pre-loaded requests; with --rate give --warmup-seconds, was " + warmupRequests);
        }
        int preloadWarmup = warmupRequests == null ? DEFAULT_WARMUP_REQUESTS : warmupRequests;
        between("--warmup-requests", preloadWarmup, 0, Integer.MAX_VALUE - 1 - requests);
        Path tracePath = trace != null ? trace : defaultTrace();
        if (!Files.isReadable(tracePath)) {
            throw bad("--trace: cannot read " + tracePath + (trace == null ? " (give --trace, or run from the project directory)" : ""));
        }
        Path dir = workDir != null ? workDir : Path.of(".kvroute").resolve("loadtest-" + System.currentTimeMillis());
        return new LoadtestRun.Options(requests, workers, gpusPerWorker, routers, policy, rate == null ? 0 : rate, bootstrapServers, registryUrl,
                (short) replicationFactor, dir.toAbsolutePath(), blockTokens, copy, sinkPartitions, Map.copyOf(settings), stallTimeout,
                tracePath, commandLine(), warmupSeconds, preloadWarmup, transactionVersion == null ? 0 : transactionVersion);
    }

    private String commandLine() {
        List<String> args = new ArrayList<>(spec.commandLine().getParseResult().originalArgs());
        // run from the top-level command, the subcommand's own name comes first
        if (!args.isEmpty() && args.get(0).equals(spec.name())) {
            args.remove(0);
        }
        return "kvroute loadtest " + String.join(" ", args);
    }

    static Path defaultTrace() {
        String home = System.getProperty("kvroute.home");
        List<Path> candidates = home != null ? List.of(Path.of(home, "traces", MOONCAKE))
                : List.of(Path.of("traces", MOONCAKE), Path.of("..", "traces", MOONCAKE));
        return candidates.stream().filter(Files::isReadable).findFirst().orElse(candidates.get(0));
    }

    private void between(String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw bad(option + " must be between " + min + " and " + max + ", was " + value);
        }
    }

    private CommandLine.ParameterException bad(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
