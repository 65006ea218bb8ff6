package io.kvroute.local.chaos;

import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.local.console.Console;
import io.kvroute.local.console.ConsoleSettings;
import io.kvroute.local.stack.LocalFleet;
import io.kvroute.schemas.topics.KvrouteTopics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvroute chaos}: the local stack as separate processes, a workload, seeded faults, and an audit of what came back. */
@Command(name = "chaos", mixinStandardHelpOptions = true,
        description = "Run the local stack with the router and workers as separate processes, send a seeded workload "
                + "(with poison records if asked), kill / hang / restart parts of it at seeded random times, then audit "
                + "the topics: exit status 2 if any request was lost, got two results (unless the broker split the transaction), was dispatched twice, any poison "
                + "record is missing from the dead-letter topic, or work went to a silent region.")
public final class ChaosCommand implements Callable<Integer> {
    @Option(names = "--requests", defaultValue = "1000", description = "Records to send, poison included (default: ${DEFAULT-VALUE}).")
    int requests;

    @Option(names = "--kill-workers", defaultValue = "0", description = "Workers to kill -9 (each restarted after --restart-delay).")
    int killWorkers;

    @Option(names = "--hang-workers", defaultValue = "0", description = "Workers to SIGSTOP for --hang-duration, then SIGCONT.")
    int hangWorkers;

    @Option(names = "--kill-router", defaultValue = "0", description = "Router instances to kill -9 (each restarted after --restart-delay).")
    int killRouter;

    @Option(names = "--restart-broker", defaultValue = "0", description = "Times to kill -9 and restart the broker.")
    int restartBroker;

    @Option(names = "--region-outage", description = "Silence every worker of one region for --outage-duration.")
    boolean regionOutage;

    @Option(names = "--poison", defaultValue = "0", description = "Fraction of records replaced by undecodable bytes (default: ${DEFAULT-VALUE}).")
    double poison;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the workload and the fault schedule (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--console", description = "Serve the web console on the run's cluster while it runs, and print its URL.")
    boolean console;

    @Option(names = "--console-port", defaultValue = "" + ConsoleSettings.DEFAULT_PORT,
            description = "With --console: its port on 127.0.0.1; 0: any free (default: ${DEFAULT-VALUE}).")
    int consolePort;

    @Option(names = "--json", description = "Write the report as JSON to this file.")
    Path json;

    @Option(names = "--rate", defaultValue = "40", description = "Mean arrival rate, requests per second (default: ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--fleet", description = "Regions as name=slots@delayMs,... (default: " + LocalFleet.DEFAULT + ").")
    String fleet;

    @Option(names = "--brokers", defaultValue = "1",
            description = "Kafka brokers (default: ${DEFAULT-VALUE}); more than one adds a controller of its own and replicates topics three ways.")
    int brokers;

    @Option(names = "--routers", defaultValue = "1", description = "Router instances (default: ${DEFAULT-VALUE}).")
    int routers;

    @Option(names = "--policy", defaultValue = "kvroute", description = "Routing policy (default: ${DEFAULT-VALUE}).")
    String policy;

    @Option(names = "--restart-delay", defaultValue = "PT3S", description = "How long a killed process stays down, ISO-8601 (default: ${DEFAULT-VALUE}).")
    Duration restartDelay;

    @Option(names = "--hang-duration", defaultValue = "PT18S", description = "How long a hung worker stays stopped (default: ${DEFAULT-VALUE}, three session timeouts).")
    Duration hangDuration;

    @Option(names = "--outage-duration", defaultValue = "PT15S", description = "How long a region outage lasts (default: ${DEFAULT-VALUE}).")
    Duration outageDuration;

    @Option(names = "--drain-timeout", defaultValue = "PT5M", description = "How long to wait for results after the last record and fault (default: ${DEFAULT-VALUE}).")
    Duration drainTimeout;

    @Option(names = "--work-dir", description = "Where the broker, registry and processes keep data and logs (default: a new directory under .kvroute/).")
    Path workDir;

    @Option(names = "--set", description = "Extra setting for the router and workers, key=value (repeatable).")
    Map<String, String> settings = new LinkedHashMap<>();

    @Override
    public Integer call() throws Exception {
        requireAtLeast("--requests", requests, 1);
        requireAtLeast("--kill-workers", killWorkers, 0);
        requireAtLeast("--hang-workers", hangWorkers, 0);
        requireAtLeast("--kill-router", killRouter, 0);
        requireAtLeast("--restart-broker", restartBroker, 0);
        requireAtLeast("--brokers", brokers, 1);
        requireAtLeast("--routers", routers, 1);
        if (!(poison >= 0 && poison <= 1)) {
            throw new IllegalArgumentException("--poison must be a fraction in [0, 1], was " + poison);
        }
        if (!(rate > 0)) {
            throw new IllegalArgumentException("--rate must be > 0, was " + rate);
        }
        FleetSpec regions = LocalFleet.parse(fleet == null ? LocalFleet.DEFAULT : fleet);
        if (regionOutage && regions.regions().size() < 2) {
            throw new IllegalArgumentException("--region-outage needs at least two regions in --fleet, was " + fleet);
        }
        Map<FaultKind, Integer> faults = new EnumMap<>(FaultKind.class);
        faults.put(FaultKind.KILL_WORKER, killWorkers);
        faults.put(FaultKind.HANG_WORKER, hangWorkers);
        faults.put(FaultKind.KILL_ROUTER, killRouter);
        faults.put(FaultKind.RESTART_BROKER, restartBroker);
        faults.put(FaultKind.REGION_OUTAGE, regionOutage ? 1 : 0);
        Path dir = workDir != null ? workDir : Files.createDirectories(Path.of(".kvroute")).resolve("chaos-" + System.currentTimeMillis());
        ChaosRun.Options options = new ChaosRun.Options(requests, faults, poison, seed, regions, policy, routers, rate,
                new FaultInjector.Timings(restartDelay, hangDuration, outageDuration), drainTimeout, dir, settings, brokers);
        ChaosRun run = new ChaosRun(options, System.err);
        if (console) {
            ConsoleSettings consoleSettings = ConsoleSettings.onPort(consolePort);
            run.alongside((bootstrap, registryUrl) -> {
                Console started = Console.on(bootstrap, registryUrl, KvrouteTopics.defaults().prefix(), consoleSettings, Clock.systemUTC());
                System.err.println("kvroute chaos: console at " + started.url() + " (it stops with the run)");
                return started;
            });
        }
        ChaosReport report = run.run();
        report.printTable(System.out);
        if (json != null) {
            report.writeJson(json);
            System.out.println("report written to " + json);
        }
        return report.passed() ? 0 : 2;
    }

    private static void requireAtLeast(String option, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException(option + " must be at least " + min + ", was " + value);
        }
    }
}
