package io.kvroute.ingress.client;

import java.util.List;
import java.util.Set;

/**
 * What a collect found: the completions in the order they were assembled, the expected request ids
 * that have none (only for {@link CollectTarget#ids}), and whether the target was met before the
 * timeout.
 */
public record CollectResult(List<Completion> completions, Set<String> missing, boolean complete, long undecodableRecords) {
    public CollectResult {
        completions = List.copyOf(completions);
        missing = Set.copyOf(missing);
    }
}
