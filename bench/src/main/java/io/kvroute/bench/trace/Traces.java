package io.kvroute.bench.trace;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** Loads a trace by format name, and rescales arrival times. */
public final class Traces {
    public static final List<String> FORMATS = List.of("mooncake", "azure", "tenants", "conversation");
    /** Formats the bench generates instead of reading a file. */
    public static final List<String> GENERATED = List.of("tenants", "conversation");

    private Traces() {
    }

    public static List<TraceRequest> load(Path path, String format, int limit) {
        return switch (format.toLowerCase(Locale.ROOT)) {
            case "mooncake" -> MooncakeTrace.read(path, limit);
            case "azure" -> AzureTrace.read(path, limit);
            default -> throw new IllegalArgumentException("--format must be one of " + FORMATS + " for a trace file, was '" + format + "'");
        };
    }

    /** Divides every arrival time by {@code loadScale}: 2.0 doubles the request rate. */
    public static List<TraceRequest> scaleLoad(List<TraceRequest> trace, double loadScale) {
        if (!(loadScale > 0)) {
            throw new IllegalArgumentException("load scale must be > 0, was " + loadScale);
        }
        return trace.stream().map(r -> r.withArrival(Math.round(r.arrivalMs() / loadScale))).toList();
    }
}
