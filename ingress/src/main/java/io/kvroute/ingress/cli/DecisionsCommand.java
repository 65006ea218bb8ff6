package io.kvroute.ingress.cli;

import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.ingress.client.DecisionReader;
import io.kvroute.ingress.client.StartPosition;
import io.kvroute.schemas.v1.RoutingDecision;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvroute decisions}: prints the router's decisions (request, outcome, region, partition,
 * worker, policy, matched prefix blocks, score, reason), as text or JSON lines. Without
 * {@code --follow} it prints what the topic holds (all, or one request's) and exits; with
 * {@code --follow} it keeps printing new ones (from the start with {@code --from-beginning}) until
 * interrupted, {@link #stop()} is called, or {@code --limit} decisions were printed. Exit status
 * 0, or 1 when {@code --request} was given and the request has no decision.
 */
@Command(name = "decisions", mixinStandardHelpOptions = true, description = "Show routing decisions.")
public final class DecisionsCommand implements Callable<Integer> {

    @Mixin
    ConnectionOptions connection = new ConnectionOptions();

    @Spec
    CommandSpec spec;

    @Option(names = "--request", paramLabel = "ID", description = "Only this request's decisions.")
    String requestId;

    @Option(names = "--follow", description = "Keep printing new decisions.")
    boolean follow;

    @Option(names = "--from-beginning", description = "With --follow, start from the oldest decision kept.")
    boolean fromBeginning;

    @Option(names = "--limit", paramLabel = "N", description = "With --follow, stop after N decisions.")
    Integer limit;

    @Option(names = "--json", description = "Print JSON lines.")
    boolean json;

    @Option(names = "--timeout", converter = DurationConverter.class, defaultValue = "30s",
            description = "Without --follow, stop reading after this long (default ${DEFAULT-VALUE}).")
    Duration timeout;

    private final Clock clock;
    private volatile DecisionReader reader;
    private volatile boolean stopped;

    public DecisionsCommand() {
        this(Clock.systemUTC());
    }

    public DecisionsCommand(Clock clock) {
        this.clock = clock;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        ClientConfig config = connection.clientConfig(Map.of());
        DecisionFormatter formatter = new DecisionFormatter();
        DecisionReader decisions = new DecisionReader(config, clock);
        reader = decisions;
        if (stopped) {
            return 0;
        }
        if (!follow) {
            List<RoutingDecision> found = requestId == null ? decisions.readAll(timeout) : decisions.forRequest(requestId, timeout);
            found.forEach(d -> out.println(json ? formatter.json(d) : formatter.text(d)));
            out.flush();
            if (requestId != null && found.isEmpty()) {
                spec.commandLine().getErr().println("no decision for request " + requestId);
                return 1;
            }
            return 0;
        }
        Predicate<RoutingDecision> filter = requestId == null ? d -> true : d -> d.getRequestId().equals(requestId);
        AtomicInteger printed = new AtomicInteger();
        decisions.follow(fromBeginning ? StartPosition.BEGINNING : StartPosition.END, filter, d -> {
            if (limit != null && printed.get() >= limit) {
                return;
            }
            out.println(json ? formatter.json(d) : formatter.text(d));
            out.flush();
            if (limit != null && printed.incrementAndGet() >= limit) {
                decisions.stop();
            }
        });
        return 0;
    }

    /** Ends a running {@code --follow} from another thread. */
    public void stop() {
        stopped = true;
        DecisionReader current = reader;
        if (current != null) {
            current.stop();
        }
    }
}
