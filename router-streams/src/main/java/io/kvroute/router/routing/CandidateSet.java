package io.kvroute.router.routing;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The workers that may take a request, and how many others were excluded for which reason. */
public record CandidateSet(List<WorkerSnapshot> candidates, Map<Exclusion, Integer> excluded, int workersSeen) {

    public CandidateSet {
        candidates = List.copyOf(candidates);
        excluded = excluded.isEmpty() ? Map.of() : new EnumMap<>(excluded);
    }

    public boolean isEmpty() {
        return candidates.isEmpty();
    }

    public int excludedCount(Exclusion reason) {
        return excluded.getOrDefault(reason, 0);
    }

    /** For example {@code "2 workers saturated, 1 worker stale telemetry"}; empty if none excluded. */
    public String exclusionSummary() {
        return excluded.entrySet().stream()
                .map(e -> e.getValue() + (e.getValue() == 1 ? " worker " : " workers ") + e.getKey().description())
                .collect(Collectors.joining(", "));
    }
}
