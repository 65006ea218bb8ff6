package io.kvroute.local.console;

import io.kvroute.ingress.cli.ConnectionOptions;
import io.kvroute.ingress.cli.DurationConverter;
import io.kvroute.ingress.client.ClientConfig;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code kvroute console}: serves the read-only web console of a kvroute deployment (any cluster,
 * the ingress commands' connection options) on 127.0.0.1 until Ctrl-C.
 */
@Command(name = "console", mixinStandardHelpOptions = true,
        description = "Serve a read-only web console of a kvroute deployment on 127.0.0.1: the fleet (KV use, queues, hit rate, "
                + "telemetry age), routing decisions with their candidates and scores, one request's story across topics, and dead "
                + "letters. It reads the topics and writes nothing.")
public final class ConsoleCommand implements Callable<Integer> {
    @Mixin
    ConnectionOptions connection = new ConnectionOptions();

    @Option(names = "--port", defaultValue = "" + ConsoleSettings.DEFAULT_PORT,
            description = "Port on 127.0.0.1; 0: any free (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--stale-after", converter = DurationConverter.class, defaultValue = "2s",
            description = "Telemetry older than this marks a worker stale (default: ${DEFAULT-VALUE}, the router's router.telemetry.ttl.ms).")
    Duration staleAfter;

    @Option(names = "--decisions-kept", defaultValue = "" + ConsoleSettings.DEFAULT_DECISIONS_KEPT,
            description = "The newest decisions kept in memory (default: ${DEFAULT-VALUE}).")
    int decisionsKept;

    @Option(names = "--dead-letters-kept", defaultValue = "" + ConsoleSettings.DEFAULT_DEAD_LETTERS_KEPT,
            description = "The newest dead letters kept in memory; counts cover all (default: ${DEFAULT-VALUE}).")
    int deadLettersKept;

    @Option(names = "--lookback", converter = DurationConverter.class, defaultValue = "6h",
            description = "A request's story is read from records this recent (default: ${DEFAULT-VALUE}).")
    Duration lookback;

    @Override
    public Integer call() throws InterruptedException {
        ConsoleSettings settings = new ConsoleSettings(port, staleAfter, decisionsKept, deadLettersKept, lookback,
                ConsoleSettings.DEFAULT_STORY_TIMEOUT);
        ClientConfig config = connection.clientConfig(Map.of());
        Console console = Console.start(config, settings, Clock.systemUTC());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            console.close();
            stopped.countDown();
        }, "kvroute-console-stop"));
        System.out.println("kvroute console: " + console.url() + " (reading " + config.bootstrapServers() + ", topics "
                + config.topics().prefix() + ".*; Ctrl-C stops)");
        System.out.flush();
        stopped.await();
        return 0;
    }
}
