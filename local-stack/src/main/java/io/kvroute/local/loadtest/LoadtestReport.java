package io.kvroute.local.loadtest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.kvroute.local.demo.Percentiles;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The figures of one {@code kvroute loadtest} run: printed as a table, written as JSON with the same numbers. */
public final class LoadtestReport {
    /**
     * One measured phase: the committed records the watch saw on the measured topics, distinct
     * keys among them, when the first and last were seen, the rate between the 10th and the 90th
     * percentile record (start-up and tail left out), and the CPU seconds each process role used
     * between the first and the last; {@code warmupRecords}, those of the warm-up's requests before them (not measured).
     */
    public record Phase(long records, int distinctKeys, Span span, double middlePerSecond, Map<String, Double> cpuSeconds,
                        long warmupRecords) {
        public double perSecond() {
            return span.perSecond();
        }

        /** CPU microseconds per record of {@code role} between the first and the last record seen; -1 if not measured. */
        public double cpuMicrosPerRecord(String role) {
            Double seconds = cpuSeconds.get(role);
            return seconds == null || span.count() < 2 ? -1 : seconds * 1e6 / (span.count() - 1);
        }

        /**
         * Cores {@code role} kept busy on average between the first and the last record seen (its CPU seconds over that
         * time); -1 if not measured. Beside the machine's cores it shows how near the run was to using them all.
         */
        public double coresBusy(String role) {
            Double seconds = cpuSeconds.get(role);
            return seconds == null || span.durationMs() <= 0 ? -1 : seconds * 1000 / span.durationMs();
        }
    }

    /** Append-to-readable latency at a fixed offered rate. */
    public record Latency(double offeredPerSecond, double sentPerSecond, int count, long p50Ms, long p99Ms, long maxMs) {
        static Latency of(double offered, double sent, List<Long> latenciesMs) {
            Percentiles p = new Percentiles(latenciesMs.stream().mapToLong(Long::longValue).toArray());
            return new Latency(offered, sent, p.count(), p.at(50), p.at(99), p.at(100));
        }
    }

    public static final String ROUTER = "router";
    public static final String BROKER = "broker";
    public static final String COPY = "copy";
    /** This process: the load generator, the watch and the fake fleet's telemetry, on the same cores as what it measures. */
    public static final String LOADTEST = "loadtest";

    private final Map<String, Object> setup;
    private final Phase copy;
    private final Phase route;
    private final Span decisionClock;
    private final Map<String, Long> outcomes;
    private final List<TopicWrites.Written> topics;
    private final Latency latency;
    private final Map<String, Map<String, Long>> logErrors;
    private final List<String> notes;

    LoadtestReport(Map<String, Object> setup, Phase copy, Phase route, Span decisionClock, Map<String, Long> outcomes,
                   List<TopicWrites.Written> topics, Latency latency, Map<String, Map<String, Long>> logErrors, List<String> notes) {
        this.setup = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(setup));
        this.copy = copy;
        this.route = route;
        this.decisionClock = decisionClock;
        this.outcomes = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(outcomes));
        this.topics = List.copyOf(topics);
        this.latency = latency;
        this.logErrors = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(logErrors));
        this.notes = List.copyOf(notes);
    }

    /** What was run: the command, the fleet, the cluster's transaction.version, ... (as in the JSON report). */
    public Map<String, Object> setup() {
        return setup;
    }

    public Phase copy() {
        return copy;
    }

    public Phase route() {
        return route;
    }

    public Map<String, Long> outcomes() {
        return outcomes;
    }

    public List<TopicWrites.Written> topics() {
        return topics;
    }

    public Latency latency() {
        return latency;
    }

    public Map<String, Map<String, Long>> logErrors() {
        return logErrors;
    }

    public List<String> notes() {
        return notes;
    }

    /** Routed per second over the copy's records per second, measured alike in the same run; -1 without a copy. */
    public double ratio() {
        return copy == null || copy.perSecond() <= 0 ? -1 : route.perSecond() / copy.perSecond();
    }

    /** Requests routed in the run, warm-up included: what the topics' writes are divided by. */
    private long routed() {
        return Math.max(1, route.records() + route.warmupRecords());
    }

    public void printTable(PrintStream out) {
        out.println();
        out.printf("kvroute loadtest: %s%n", setup.get("summary"));
        out.println();
        out.printf("%-58s %14s%n", "what", "value");
        row(out, "router: dispatches read committed (distinct requests)", route.records() + " (" + route.distinctKeys() + ")");
        row(out, "router: routed/s, first to last committed dispatch seen", fmt(route.perSecond(), 0));
        row(out, "router: routed/s, 10th to 90th percentile dispatch", fmt(route.middlePerSecond(), 0));
        row(out, "router: decided/s, by the decisions' decidedAtMs", fmt(decisionClock.perSecond(), 0));
        if (copy != null) {
            row(out, "copy app: records read committed (distinct)", copy.records() + " (" + copy.distinctKeys() + ")");
            row(out, "copy app: records/s, first to last committed record seen", fmt(copy.perSecond(), 0));
            row(out, "copy app: records/s, 10th to 90th percentile record", fmt(copy.middlePerSecond(), 0));
            row(out, "ratio routed/s : copy records/s", fmt(ratio(), 2));
        }
        row(out, "router CPU µs per routed request (all instances)", fmt(route.cpuMicrosPerRecord(ROUTER), 0));
        row(out, "broker CPU µs per routed request", fmt(route.cpuMicrosPerRecord(BROKER), 0));
        row(out, "loadtest process CPU µs per routed request", fmt(route.cpuMicrosPerRecord(LOADTEST), 0));
        row(out, "cores busy meanwhile: router / broker / loadtest (of " + setup.getOrDefault("coresAvailable", "?") + ")",
                fmt(route.coresBusy(ROUTER), 2) + " / " + fmt(route.coresBusy(BROKER), 2) + " / " + fmt(route.coresBusy(LOADTEST), 2));
        if (copy != null) {
            row(out, "copy app CPU µs per copied record", fmt(copy.cpuMicrosPerRecord(COPY), 0));
            row(out, "broker CPU µs per copied record", fmt(copy.cpuMicrosPerRecord(BROKER), 0));
        }
        outcomes.forEach((outcome, count) -> row(out, "decisions " + outcome, Long.toString(count)));
        if (latency != null) {
            row(out, "offered rate /s (achieved send rate)", fmt(latency.offeredPerSecond(), 0) + " (" + fmt(latency.sentPerSecond(), 0) + ")");
            row(out, "append -> dispatch readable: p50 / p99 / max ms (" + latency.count() + " measured, "
                    + setup.get("warmupRequests") + " warm-up left out)", latency.p50Ms() + " / " + latency.p99Ms() + " / " + latency.maxMs());
        }
        out.println();
        out.printf("written per routed request (%d routed%s), from end offsets and describeLogDirs:%n", routed(),
                route.warmupRecords() > 0 ? ", " + route.warmupRecords() + " of them to warm up" : "");
        out.printf("%-52s %6s %9s %9s %9s %10s %10s%n", "topic", "parts", "records", "markers", "tombst.", "payload B", "log B");
        for (TopicWrites.Written w : topics) {
            out.printf("%-52s %6d %9.3f %9.3f %9.3f %10.0f %10.0f%n", w.topic(), w.partitions(), (double) w.records() / routed(),
                    (double) w.markers() / routed(), (double) w.tombstones() / routed(), (double) w.payloadBytes() / routed(),
                    (double) w.logBytes() / routed());
        }
        out.println();
        Object transactionVersion = setup.getOrDefault("transactionVersion", 0);
        out.println("producer errors in the process logs (lines naming the error; the cluster's transaction.version is "
                + transactionVersion + (Integer.valueOf(2).equals(transactionVersion)
                        ? ": CONCURRENT_TRANSACTIONS, then OUT_OF_ORDER_SEQUENCE_NUMBER behind it, is a write sent again while the "
                        + "broker still finished the previous commit, for longer than it holds such a write "
                        + "(add.partitions.to.txn.retry.backoff.max.ms)" : "") + "):");
        logErrors.forEach((process, counts) -> {
            if (counts.isEmpty()) {
                out.printf("  %-20s %s%n", process, "none");
            }
            counts.forEach((error, count) -> out.printf("  %-20s %-36s %d%n", process, error, count));
        });
        if (!notes.isEmpty()) {
            out.println();
            notes.forEach(note -> out.println("note: " + note));
        }
    }

    private static void row(PrintStream out, String what, String value) {
        out.printf("%-58s %14s%n", what, value);
    }

    private static String fmt(double value, int decimals) {
        return value < 0 ? "n/a" : String.format("%,." + decimals + "f", value);
    }

    public Map<String, Object> toMap() {
        Map<String, Object> json = new LinkedHashMap<>(setup);
        Map<String, Object> router = phase(route);
        router.put("decidedPerSecondByDecisionClock", decisionClock.perSecond());
        router.put("cpuMicrosPerRequest", Map.of(ROUTER, route.cpuMicrosPerRecord(ROUTER), BROKER, route.cpuMicrosPerRecord(BROKER),
                LOADTEST, route.cpuMicrosPerRecord(LOADTEST)));
        router.put("coresBusy", Map.of(ROUTER, route.coresBusy(ROUTER), BROKER, route.coresBusy(BROKER), LOADTEST, route.coresBusy(LOADTEST)));
        json.put("router", router);
        if (copy != null) {
            Map<String, Object> c = phase(copy);
            c.put("cpuMicrosPerRecord", Map.of(COPY, copy.cpuMicrosPerRecord(COPY), BROKER, copy.cpuMicrosPerRecord(BROKER)));
            json.put("copy", c);
            json.put("ratioRoutedToCopy", ratio());
        }
        json.put("decisionOutcomes", outcomes);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (TopicWrites.Written w : topics) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("topic", w.topic());
            row.put("partitions", w.partitions());
            row.put("offsets", w.offsets());
            row.put("records", w.records());
            row.put("markers", w.markers());
            row.put("tombstones", w.tombstones());
            row.put("payloadBytes", w.payloadBytes());
            row.put("logBytes", w.logBytes());
            row.put("recordsPerRequest", (double) w.records() / routed());
            row.put("markersPerRequest", (double) w.markers() / routed());
            row.put("payloadBytesPerRequest", (double) w.payloadBytes() / routed());
            row.put("logBytesPerRequest", (double) w.logBytes() / routed());
            rows.add(row);
        }
        json.put("writtenPerRequest", rows);
        if (latency != null) {
            json.put("latency", latency);
        }
        json.put("producerErrorsInLogs", logErrors);
        json.put("notes", notes);
        return json;
    }

    private static Map<String, Object> phase(Phase phase) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("records", phase.records());
        m.put("warmupRecords", phase.warmupRecords());
        m.put("distinctKeys", phase.distinctKeys());
        m.put("firstSeenMs", phase.span().firstMs());
        m.put("lastSeenMs", phase.span().lastMs());
        m.put("perSecond", phase.perSecond());
        m.put("perSecond10thTo90thPercentile", phase.middlePerSecond());
        m.put("cpuSeconds", phase.cpuSeconds());
        return m;
    }

    public void writeJson(Path path) {
        writeJson(path, toMap());
    }

    static void writeJson(Path path, Map<String, Object> json) {
        try {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(path.toFile(), json);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path + ": " + e.getMessage(), e);
        }
    }
}
