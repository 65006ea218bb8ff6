package io.kvroute.router.routing;

import java.util.List;
import java.util.Objects;

/**
 * Where a policy put a request: a worker, its region and one of the worker's partitions (GPU
 * slots), with the winning score, the best candidates and a human-readable reason.
 */
public record Placement(
        String workerId,
        String region,
        int partition,
        double score,
        int matchedBlocks,
        List<ScoredCandidate> topCandidates,
        String reason) {

    public Placement {
        Objects.requireNonNull(workerId, "workerId");
        Objects.requireNonNull(region, "region");
        topCandidates = List.copyOf(topCandidates);
        Objects.requireNonNull(reason, "reason");
    }

    public Placement withReason(String newReason) {
        return new Placement(workerId, region, partition, score, matchedBlocks, topCandidates, newReason);
    }
}
