package io.kvroute.ingress.batch;

import java.util.List;

/** Counts of one batch input file: non-blank and blank lines read, requests parsed, lines rejected. */
public record BatchInputSummary(int linesRead, int parsed, List<BatchLine.Malformed> malformed) {
    public BatchInputSummary {
        malformed = List.copyOf(malformed);
    }

    public int malformedCount() {
        return malformed.size();
    }
}
