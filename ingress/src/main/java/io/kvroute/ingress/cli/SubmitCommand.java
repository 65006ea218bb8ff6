package io.kvroute.ingress.cli;

import io.kvroute.ingress.batch.BatchInputParser;
import io.kvroute.ingress.batch.BatchInputSummary;
import io.kvroute.ingress.batch.BatchLine;
import io.kvroute.ingress.batch.BatchManifest;
import io.kvroute.ingress.batch.ManifestEntry;
import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.ingress.client.Completion;
import io.kvroute.ingress.client.KvrouteClient;
import io.kvroute.ingress.client.SubmitException;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.ResponseStatus;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import com.fasterxml.jackson.databind.ObjectMapper;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code kvroute submit FILE.jsonl}: sends every request of an OpenAI Batch input file to the
 * requests topic. Malformed lines are reported on stderr with their line number and skipped. Each
 * request sent gets a line in the manifest ({@code FILE.manifest.jsonl} unless {@code --manifest}
 * says otherwise) which {@code kvroute collect --ids} uses to find and render the results. With
 * {@code --wait} it also waits for every result and prints the counts by status.
 * Exit status: 0 when every parsed line was sent (and, with {@code --wait}, has a result), 1 when
 * sending failed or results are missing, 2 when the input cannot be read.
 */
@Command(name = "submit", mixinStandardHelpOptions = true,
        description = "Submit an OpenAI Batch input file (JSONL) to kvroute.")
public final class SubmitCommand implements java.util.concurrent.Callable<Integer> {

    @Mixin
    ConnectionOptions connection = new ConnectionOptions();

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE.jsonl", description = "OpenAI Batch input file.")
    Path input;

    @Option(names = "--tenant", description = "Tenant to submit under (default: ingress.tenant, else 'default').")
    String tenant;

    @Option(names = "--manifest", paramLabel = "FILE", description = "Where to write the request ids sent (default FILE.jsonl.manifest.jsonl).")
    Path manifest;

    @Option(names = "--wait", description = "Wait for every result and print a summary.")
    boolean await;

    @Option(names = "--timeout", converter = DurationConverter.class, defaultValue = "10m",
            description = "How long --wait waits for results (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--progress", negatable = true, description = "Show a progress bar on stderr (default: when a terminal is attached).")
    Boolean progress;

    private final Clock clock;

    public SubmitCommand() {
        this(Clock.systemUTC());
    }

    public SubmitCommand(Clock clock) {
        this.clock = clock;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!Files.isReadable(input)) {
            err.println("cannot read " + input);
            return 2;
        }
        ClientConfig config = connection.clientConfig(tenant == null ? Map.of() : Map.of(ClientConfig.TENANT, tenant));
        Path manifestPath = manifest != null ? manifest : input.resolveSibling(input.getFileName() + ".manifest.jsonl");
        boolean showProgress = ProgressBar.wanted(progress);
        ProgressBar bar = new ProgressBar(err, showProgress, "submit", showProgress ? countLines(input) : -1,
                clock::millis, ProgressBar.DEFAULT_INTERVAL_MS);
        BatchManifest manifestFormat = new BatchManifest();
        List<CompletableFuture<Completion>> futures = new ArrayList<>();
        AtomicInteger sent = new AtomicInteger();
        BatchInputSummary summary;
        try (KvrouteClient client = new KvrouteClient(config, clock);
             BufferedReader reader = Files.newBufferedReader(input);
             BufferedWriter manifestOut = Files.newBufferedWriter(manifestPath)) {
            summary = new BatchInputParser(new ObjectMapper(), tenant).read(reader, line -> {
                if (line instanceof BatchLine.Malformed m) {
                    bar.finishLineIfDrawn();
                    err.println("skipped " + m);
                } else if (line instanceof BatchLine.Parsed p) {
                    String id = send(client, p, futures);
                    writeLine(manifestOut, manifestFormat.line(new ManifestEntry(id, p.customId(), p.endpoint(), p.request().model())));
                    sent.incrementAndGet();
                }
                bar.update(line.lineNumber());
            });
            client.flush();
            bar.finish(summary.linesRead());
            out.println("submitted " + sent.get() + " requests, " + summary.malformedCount() + " malformed lines skipped; manifest " + manifestPath);
            if (await) {
                return awaitResults(futures, out, err);
            }
            return 0;
        } catch (SubmitException e) {
            err.println("sending failed: " + e.getMessage());
            return 1;
        } catch (IOException | UncheckedIOException e) {
            err.println("cannot read " + input + " or write " + manifestPath + ": " + e.getMessage());
            return 2;
        }
    }

    private String send(KvrouteClient client, BatchLine.Parsed line, List<CompletableFuture<Completion>> futures) {
        InferenceRequest prepared = client.prepare(line.request());
        if (await) {
            futures.add(client.submit(prepared, chunk -> { }));
            return prepared.getRequestId();
        }
        return client.send(prepared);
    }

    private Integer awaitResults(List<CompletableFuture<Completion>> futures, PrintWriter out, PrintWriter err) {
        boolean showProgress = ProgressBar.wanted(progress);
        ProgressBar bar = new ProgressBar(err, showProgress, "results", futures.size(), clock::millis, ProgressBar.DEFAULT_INTERVAL_MS);
        AtomicInteger done = new AtomicInteger();
        futures.forEach(f -> f.whenComplete((c, e) -> bar.update(done.incrementAndGet())));
        CompletableFuture<Void> all = CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new));
        try {
            all.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // counted below, per request
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        bar.finish(done.get());
        Map<ResponseStatus, Integer> byStatus = new EnumMap<>(ResponseStatus.class);
        int missing = 0;
        for (CompletableFuture<Completion> f : futures) {
            Completion c = f.isDone() && !f.isCompletedExceptionally() ? f.join() : null;
            if (c == null) {
                missing++;
            } else {
                byStatus.merge(c.status(), 1, Integer::sum);
            }
        }
        out.println("results " + byStatus + ", missing " + missing);
        return missing == 0 ? 0 : 1;
    }

    private static void writeLine(BufferedWriter writer, String line) {
        try {
            writer.write(line);
            writer.newLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long countLines(Path path) {
        try (Stream<String> lines = Files.lines(path)) {
            return lines.count();
        } catch (IOException | UncheckedIOException e) {
            return -1;
        }
    }
}
