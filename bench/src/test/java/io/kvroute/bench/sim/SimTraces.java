package io.kvroute.bench.sim;

import io.kvroute.bench.trace.MooncakeTrace;
import io.kvroute.bench.trace.TraceRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The Mooncake synthetic trace of the repository, for tests that replay part of it. */
public final class SimTraces {
    static final Path MOONCAKE = locate();

    private SimTraces() {
    }

    public static List<TraceRequest> mooncake(int limit) {
        return MooncakeTrace.read(MOONCAKE, limit);
    }

    private static Path locate() {
        for (Path candidate : List.of(Path.of("../traces/mooncake_fast25_synthetic/synthetic_trace.jsonl"),
                Path.of("traces/mooncake_fast25_synthetic/synthetic_trace.jsonl"))) {
            if (Files.isReadable(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("Mooncake synthetic trace not found from " + Path.of("").toAbsolutePath());
    }
}
