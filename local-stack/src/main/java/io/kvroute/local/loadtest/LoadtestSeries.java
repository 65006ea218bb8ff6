package io.kvroute.local.loadtest;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The same load test run several times in a row ({@code --repeat N}), each with its own broker and copy, summed up
 * by the median of each figure. On a shared machine one run's ratio moves by a fifth between runs of the same
 * command; the median of a few says more than any one of them, and the spread says how much to trust it.
 */
public final class LoadtestSeries {
    /** A figure of one run, by the name the summary shows; -1 where the run did not measure it. */
    private record Figure(String name, ToDoubleFunction<LoadtestReport> of, int decimals) {
    }

    private static final List<Figure> FIGURES = List.of(
            new Figure("routed/s", r -> r.route().perSecond(), 0),
            new Figure("copy rec/s", r -> r.copy() == null ? -1 : r.copy().perSecond(), 0),
            new Figure("ratio", LoadtestReport::ratio, 2),
            new Figure("router µs/req", r -> r.route().cpuMicrosPerRecord(LoadtestReport.ROUTER), 0),
            new Figure("copy µs/rec", r -> r.copy() == null ? -1 : r.copy().cpuMicrosPerRecord(LoadtestReport.COPY), 0),
            new Figure("broker µs/routed", r -> r.route().cpuMicrosPerRecord(LoadtestReport.BROKER), 0),
            new Figure("loadtest µs/req", r -> r.route().cpuMicrosPerRecord(LoadtestReport.LOADTEST), 0),
            new Figure("p50 ms", r -> r.latency() == null ? -1 : r.latency().p50Ms(), 0),
            new Figure("p99 ms", r -> r.latency() == null ? -1 : r.latency().p99Ms(), 0));

    private final List<LoadtestReport> runs;

    public LoadtestSeries(List<LoadtestReport> runs) {
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("a series needs at least one run");
        }
        this.runs = List.copyOf(runs);
    }

    public List<LoadtestReport> runs() {
        return runs;
    }

    /** The median of a figure over the runs that measured it (the lower middle of an even count); -1 if none did. */
    public double median(String figure) {
        Figure f = FIGURES.stream().filter(x -> x.name().equals(figure)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no figure '" + figure + "'"));
        double[] values = runs.stream().mapToDouble(f.of()).filter(v -> v >= 0).sorted().toArray();
        return values.length == 0 ? -1 : values[(values.length - 1) / 2];
    }

    /** A row per run and the medians, for the figures any run measured. */
    public void printSummary(PrintStream out) {
        List<Figure> shown = FIGURES.stream().filter(f -> runs.stream().anyMatch(r -> f.of().applyAsDouble(r) >= 0)).toList();
        out.println();
        out.printf("kvroute loadtest: %d runs of the same command, each with its own broker and copy%n", runs.size());
        StringBuilder header = new StringBuilder(String.format("%-8s", "run"));
        shown.forEach(f -> header.append(String.format("%18s", f.name())));
        out.println(header);
        for (int i = 0; i < runs.size(); i++) {
            StringBuilder row = new StringBuilder(String.format("%-8s", i + 1));
            LoadtestReport run = runs.get(i);
            shown.forEach(f -> row.append(String.format("%18s", fmt(f.of().applyAsDouble(run), f.decimals()))));
            out.println(row);
        }
        StringBuilder median = new StringBuilder(String.format("%-8s", "median"));
        shown.forEach(f -> median.append(String.format("%18s", fmt(median(f.name()), f.decimals()))));
        out.println(median);
    }

    /** Each run's report as {@link LoadtestReport#toMap} and the medians. */
    public Map<String, Object> toMap() {
        Map<String, Object> json = new LinkedHashMap<>();
        Map<String, Object> medians = new LinkedHashMap<>();
        FIGURES.forEach(f -> medians.put(f.name(), median(f.name())));
        json.put("median", medians);
        List<Map<String, Object>> each = new ArrayList<>();
        runs.forEach(r -> each.add(r.toMap()));
        json.put("runs", each);
        return json;
    }

    public void writeJson(Path path) {
        LoadtestReport.writeJson(path, toMap());
    }

    private static String fmt(double value, int decimals) {
        return value < 0 ? "n/a" : String.format("%,." + decimals + "f", value);
    }
}
