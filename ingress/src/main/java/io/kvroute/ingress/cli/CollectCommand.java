package io.kvroute.ingress.cli;

import io.kvroute.ingress.batch.BatchManifest;
import io.kvroute.ingress.batch.BatchOutputRenderer;
import io.kvroute.ingress.batch.ManifestEntry;
import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.ingress.client.CollectResult;
import io.kvroute.ingress.client.CollectTarget;
import io.kvroute.ingress.client.Completion;
import io.kvroute.ingress.client.DuplicateRejection;
import io.kvroute.ingress.client.ResponseCollector;
import io.kvroute.schemas.v1.ResponseStatus;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvroute collect --output FILE}: reads the responses topic from the beginning, assembles
 * results by the response rule and writes them as OpenAI Batch output JSONL. With {@code --ids}
 * (a submit manifest, or plain request ids one per line) it waits for exactly those requests,
 * writes them in manifest order with each line's endpoint and model, and writes an error line
 * (code {@value BatchOutputRenderer#MISSING_CODE}) for each one still missing at the timeout; with
 * {@code --expect N} it stops after N results; with neither, after what the topic held at start.
 * Rejected duplicate submissions of a request id are never written as results; their ids are
 * reported on stderr. Exit status: 0 when the target was met, 1 when results are missing at the
 * timeout, 2 on bad input.
 */
@Command(name = "collect", mixinStandardHelpOptions = true,
        description = "Collect results as OpenAI Batch output JSONL.")
public final class CollectCommand implements Callable<Integer> {

    @Mixin
    ConnectionOptions connection = new ConnectionOptions();

    @Spec
    CommandSpec spec;

    @Option(names = "--output", required = true, paramLabel = "FILE", description = "Output JSONL file.")
    Path output;

    @ArgGroup(exclusive = true)
    Target target;

    static final class Target {
        @Option(names = "--ids", paramLabel = "FILE", description = "Manifest written by submit, or request ids one per line.")
        Path ids;

        @Option(names = "--expect", paramLabel = "N", description = "Number of results to wait for.")
        Integer expect;
    }

    @Option(names = "--timeout", converter = DurationConverter.class, defaultValue = "5m",
            description = "Give up waiting after this long (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--progress", negatable = true, description = "Show a progress bar on stderr (default: when a terminal is attached).")
    Boolean progress;

    private final Clock clock;

    public CollectCommand() {
        this(Clock.systemUTC());
    }

    public CollectCommand(Clock clock) {
        this.clock = clock;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Map<String, ManifestEntry> manifest;
        try {
            manifest = target != null && target.ids != null ? new BatchManifest().read(target.ids) : Map.of();
        } catch (UncheckedIOException | IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        }
        CollectTarget collectTarget = target == null ? CollectTarget.available()
                : target.ids != null ? CollectTarget.ids(manifest.keySet()) : CollectTarget.count(target.expect);
        ClientConfig config = connection.clientConfig(Map.of());
        ProgressBar bar = new ProgressBar(err, ProgressBar.wanted(progress), "collect",
                collectTarget.expected().orElse(-1), clock::millis, ProgressBar.DEFAULT_INTERVAL_MS);
        CollectResult result = new ResponseCollector(config, clock).collect(collectTarget, timeout, (latest, count) -> bar.update(count));
        bar.finish(result.completions().size());
        try {
            write(result, manifest);
        } catch (IOException | UncheckedIOException e) {
            err.println("cannot write " + output + ": " + e.getMessage());
            return 2;
        }
        Map<ResponseStatus, Integer> byStatus = new EnumMap<>(ResponseStatus.class);
        result.completions().forEach(c -> byStatus.merge(c.status(), 1, Integer::sum));
        out.println("collected " + result.completions().size() + " results " + byStatus
                + (result.missing().isEmpty() ? "" : ", " + result.missing().size() + " missing") + "; wrote " + output);
        if (!result.duplicateRejections().isEmpty()) {
            err.println(result.duplicateRejections().size() + " duplicate submissions were rejected (not results; their requests"
                    + " are answered by their own lines), request ids: " + result.duplicateRejections().stream()
                    .map(DuplicateRejection::requestId).distinct().limit(10).toList()
                    + (result.duplicateRejections().size() > 10 ? " ..." : ""));
        }
        if (!result.complete()) {
            err.println("timed out after " + timeout + " with results missing");
            return 1;
        }
        return 0;
    }

    private void write(CollectResult result, Map<String, ManifestEntry> manifest) throws IOException {
        BatchOutputRenderer renderer = new BatchOutputRenderer();
        Map<String, Completion> byId = new LinkedHashMap<>();
        result.completions().forEach(c -> byId.put(c.requestId(), c));
        try (BufferedWriter writer = Files.newBufferedWriter(output)) {
            for (ManifestEntry entry : manifest.values()) {
                Completion completion = byId.remove(entry.requestId());
                writer.write(completion == null ? renderer.renderMissing(entry) : renderer.render(completion, entry));
                writer.newLine();
            }
            for (Completion completion : byId.values()) {
                writer.write(renderer.render(completion, null));
                writer.newLine();
            }
        }
    }
}
