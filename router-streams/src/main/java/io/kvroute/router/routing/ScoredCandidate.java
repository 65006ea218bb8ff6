package io.kvroute.router.routing;

import java.util.Map;

/**
 * One candidate as a policy scored it; the components explain the score (for example
 * {@code queue_ms}, {@code prefill_ms}, {@code kv}, {@code prefix_blocks}).
 */
public record ScoredCandidate(String workerId, String region, int partition, double score, Map<String, Double> components) {
    public ScoredCandidate {
        // already immutable: no copy
        components = components instanceof ScoreComponents ? components : Map.copyOf(components);
    }
}
