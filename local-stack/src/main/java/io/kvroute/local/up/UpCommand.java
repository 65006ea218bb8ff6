package io.kvroute.local.up;

import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.local.console.Console;
import io.kvroute.local.console.ConsoleSettings;
import io.kvroute.local.stack.LocalFleet;
import io.kvroute.local.stack.LocalStack;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kvroute up}: the embedded local stack (KRaft broker, schema registry, router, simulated GPU
 * workers) kept running until Ctrl-C, for a user's own batches. Its data stays in its work directory,
 * at the same addresses, for the next {@code up}.
 */
@Command(name = "up", mixinStandardHelpOptions = true,
        description = "Start the embedded local stack (KRaft broker, schema registry, router, simulated GPU workers) and keep it "
                + "running until Ctrl-C, with the web console; prints the addresses and the submit / collect / decisions commands to paste. "
                + "Its data is kept in --work-dir for the next 'up'.")
public final class UpCommand implements Callable<Integer> {
    @Option(names = "--fleet", description = "Regions as name=slots@delayMs,... (default: " + LocalFleet.DEFAULT + ").")
    String fleet;

    @Option(names = "--policy", defaultValue = "kvroute", description = "Routing policy (default: ${DEFAULT-VALUE}).")
    String policy;

    @Option(names = "--work-dir", defaultValue = ".kvroute/up", description = "Where the stack keeps its data and logs (default: ${DEFAULT-VALUE}).")
    Path workDir;

    @Option(names = "--fresh", description = "Delete the work directory's data first and start empty.")
    boolean fresh;

    @Option(names = "--kafka-port", defaultValue = "9092", description = "The broker's port on 127.0.0.1; its controller takes the next one; 0: any free (default: ${DEFAULT-VALUE}).")
    int kafkaPort;

    @Option(names = "--registry-port", defaultValue = "8081", description = "The schema registry's port on 127.0.0.1; 0: any free (default: ${DEFAULT-VALUE}).")
    int registryPort;

    @Option(names = "--console-port", defaultValue = "" + ConsoleSettings.DEFAULT_PORT,
            description = "The web console's port on 127.0.0.1; 0: any free; -1: no console (default: ${DEFAULT-VALUE}).")
    int consolePort;

    @Option(names = "--set", description = "Extra setting for the router and workers, key=value (repeatable).")
    Map<String, String> settings = new LinkedHashMap<>();

    @Override
    public Integer call() throws Exception {
        CountDownLatch stopped = new CountDownLatch(1);
        if (consolePort != -1) {
            requireFree("--console-port", consolePort, consolePort);
        }
        LocalStack stack = start(System.err);
        Console console;
        try {
            console = consolePort == -1 ? null : Console.onLocalStack(stack, ConsoleSettings.onPort(consolePort), Clock.systemUTC());
        } catch (RuntimeException e) {
            stack.close();
            throw e;
        }
        // Ctrl-C and kill stop the stack here, in order (router and workers while the broker is still up, then the
        // registry and the broker), before the JVM's shutdown hooks run: the child processes' own hooks would otherwise
        // kill the broker while the workers still announce themselves DOWN to it, each waiting a minute for metadata
        CountDownLatch stop = new CountDownLatch(1);
        boolean signalsHandled = handleStopSignals(stop);
        Thread hook = new Thread(() -> {
            stop.countDown();
            awaitQuietly(stopped);
        }, "kvroute-up-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        System.out.print(UpInstructions.of(stack, workDir, clientConfig(), exampleBatch(), console == null ? null : console.url()));
        System.out.flush();
        stop.await();
        System.err.println("kvroute up: stopping (data kept in " + workDir.toAbsolutePath() + ")");
        try {
            if (console != null) {
                console.close();
            }
            stack.close();
        } finally {
            stopped.countDown();
        }
        if (signalsHandled) {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        return 0;
    }

    /** SIGINT and SIGTERM count {@code stop} down instead of starting the JVM's shutdown; false where that cannot be arranged. */
    private static boolean handleStopSignals(CountDownLatch stop) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("INT"), signal -> stop.countDown());
            sun.misc.Signal.handle(new sun.misc.Signal("TERM"), signal -> stop.countDown());
            return true;
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return false;
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Validates the options, starts the stack and writes the client settings and an example batch into the work directory. */
    LocalStack start(PrintStream progress) throws IOException {
        FleetSpec regions = LocalFleet.parse(fleet == null ? LocalFleet.DEFAULT : fleet);
        int controllerPort = kafkaPort == 0 ? 0 : kafkaPort + 1;
        requireFree("--kafka-port", kafkaPort, kafkaPort);
        requireFree("--kafka-port", kafkaPort, controllerPort);
        requireFree("--registry-port", registryPort, registryPort);
        if (fresh) {
            UpFiles.deleteRecursively(workDir);
        }
        Files.createDirectories(workDir);
        Map<String, String> all = new LinkedHashMap<>();
        // metrics and health on free ports, printed once known
        all.put("router.metrics.port", "0");
        all.put("worker.metrics.port", "0");
        all.putAll(settings);
        progress.println("kvroute up: starting the local stack in " + workDir.toAbsolutePath() + " (KRaft broker, schema registry, router, "
                + regions.totalGpus() + " simulated GPUs in " + regions.regions().size() + " regions)...");
        LocalStack stack = new LocalStack(workDir, regions, policy, all).kept(kafkaPort, controllerPort, registryPort).start();
        try {
            UpFiles.writeClientConfig(clientConfig(), stack);
            UpFiles.writeExampleBatch(exampleBatch());
        } catch (IOException | RuntimeException e) {
            stack.close();
            throw e;
        }
        return stack;
    }

    Path clientConfig() {
        return workDir.resolve("client.properties");
    }

    Path exampleBatch() {
        return workDir.resolve("example-batch.jsonl");
    }

    private static void requireFree(String option, int given, int port) {
        if (port == 0) {
            return;
        }
        if (port < 0 || port > 65_534) {
            throw new IllegalArgumentException(option + " must be 0 (any free port) or 1-65534, was " + given);
        }
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
        } catch (IOException e) {
            throw new IllegalArgumentException(option + " " + given + ": port " + port + " on 127.0.0.1 is in use (another 'kvroute up' or a "
                    + "broker?); stop it, or give another port (0: any free)");
        }
    }
}
