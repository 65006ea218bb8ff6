package io.kvroute.local.demo;

import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.local.console.Console;
import io.kvroute.local.console.ConsoleSettings;
import io.kvroute.local.stack.LocalFleet;
import io.kvroute.bench.trace.MooncakeTrace;
import io.kvroute.bench.trace.TraceRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvroute demo}: the whole product on one machine, replaying a real trace. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run the embedded local stack (KRaft broker, schema registry, router, simulated GPU workers in "
                + "three regions) and replay a trace through it; prints live progress and a summary.")
public final class DemoCommand implements Callable<Integer> {
    @Option(names = "--requests", defaultValue = "300", description = "Replay the first N requests of the trace (default: ${DEFAULT-VALUE}).")
    int requests;

    @Option(names = "--trace", description = "A Mooncake JSONL trace (default: the bundled Mooncake FAST'25 synthetic trace).")
    Path trace;

    @Option(names = "--policy", defaultValue = "kvroute", description = "Routing policy (default: ${DEFAULT-VALUE}).")
    String policy;

    @Option(names = "--fleet", description = "Regions as name=slots@delayMs,... (default: us-east=4@5,eu-west=2@40,ap-south=2@90).")
    String fleet;

    @Option(names = "--time-scale", defaultValue = "1.0", description = "Replay arrivals this many times faster (default: ${DEFAULT-VALUE}).")
    double timeScale;

    @Option(names = "--drain-timeout", defaultValue = "PT3M", description = "How long to wait for results after the last request is sent, ISO-8601 (default: ${DEFAULT-VALUE}).")
    Duration drainTimeout;

    @Option(names = "--summary-json", description = "Write the summary as JSON to this file.")
    Path summaryJson;

    @Option(names = "--work-dir", description = "Where the broker and registry keep their data and logs (default: a new directory under .kvroute/).")
    Path workDir;

    @Option(names = "--set", description = "Extra setting for the router and workers, key=value (repeatable).")
    Map<String, String> settings = new LinkedHashMap<>();

    @Option(names = "--routers", defaultValue = "1", description = "Router instances; they share the requests and follow each other's decisions (default: ${DEFAULT-VALUE}).")
    int routers;

    @Option(names = "--engine", defaultValue = "sim", description = "The workers' engine: sim (simulated GPUs) or openai (default: ${DEFAULT-VALUE}).")
    String engine;

    @Option(names = "--endpoint", description = "With --engine openai: the OpenAI-compatible server all workers send to, e.g. http://127.0.0.1:8000.")
    String endpoint;

    @Option(names = "--model", description = "With --engine openai: the model name the server serves (default: the server's only model is assumed to answer to the stack's model name).")
    String model;

    @Option(names = "--console", description = "Serve the web console on the demo's stack while it runs, and print its URL.")
    boolean console;

    @Option(names = "--secure", description = "Run on a secured broker: SASL_SSL with SCRAM-SHA-512, the KRaft authorizer, ACLs per role, "
            + "and two tenants with topics of their own sharing the trace's requests; their client properties are written to <work dir>/clients.")
    boolean secure;

    @Option(names = "--console-port", defaultValue = "" + ConsoleSettings.DEFAULT_PORT,
            description = "With --console: its port on 127.0.0.1; 0: any free (default: ${DEFAULT-VALUE}).")
    int consolePort;

    @Override
    public Integer call() throws Exception {
        if (requests < 1) {
            throw new IllegalArgumentException("--requests must be at least 1, was " + requests);
        }
        if (routers < 1) {
            throw new IllegalArgumentException("--routers must be at least 1, was " + routers);
        }
        if (!(timeScale > 0)) {
            throw new IllegalArgumentException("--time-scale must be > 0, was " + timeScale);
        }
        if (secure && console) {
            throw new IllegalArgumentException("--console does not run on a --secure stack yet (it reads the shared topics as no principal)");
        }
        if (!engine.equals("sim")) {
            if (!engine.equals("openai") || endpoint == null) {
                throw new IllegalArgumentException("--engine must be sim, or openai with --endpoint URL; was '" + engine + "'"
                        + (endpoint == null ? " without --endpoint" : ""));
            }
            settings.put("worker.engine", "openai");
            settings.put("worker.openai.endpoint", endpoint);
            if (model != null) {
                settings.put("worker.openai.model", model);
            }
        }
        Path tracePath = trace != null ? trace : defaultTrace();
        List<TraceRequest> replay = MooncakeTrace.read(tracePath, requests);
        FleetSpec regions = LocalFleet.parse(fleet == null ? LocalFleet.DEFAULT : fleet);
        Path dir = workDir != null ? workDir : Files.createDirectories(Path.of(".kvroute")).resolve("demo-" + System.currentTimeMillis());
        DemoRun.Options options = new DemoRun.Options(tracePath.getFileName().toString(), replay, policy, regions, timeScale,
                drainTimeout, dir, settings, routers, secure);
        ConsoleSettings consoleSettings = console ? ConsoleSettings.onPort(consolePort) : null;
        DemoRun run = new DemoRun(options, System.err);
        if (console) {
            run.alongside(stack -> {
                Console started = Console.onLocalStack(stack, consoleSettings, Clock.systemUTC());
                System.err.println("kvroute demo: console at " + started.url() + " (fleet, decisions, requests, dead letters; "
                        + "it stops with the demo)");
                return started;
            });
        }
        DemoSummary summary = run.run();
        summary.printTable(System.out);
        if (summaryJson != null) {
            summary.writeJson(summaryJson);
            System.out.println("summary written to " + summaryJson);
        }
        if (summary.lost() > 0) {
            System.err.println("kvroute demo: " + summary.lost() + " request(s) LOST (no terminal result)");
            return 2;
        }
        return 0;
    }

    private static Path defaultTrace() {
        Path home = Path.of(System.getProperty("kvroute.home", "."));
        return home.resolve("traces/mooncake_fast25_synthetic/synthetic_trace.jsonl");
    }
}
