package io.kvroute.ingress.client;

import java.util.List;
import java.util.Set;

/**
 * What a collect found: the completions in the order they were assembled, the expected request ids
 * that have none (only for {@link CollectTarget#ids}), whether the target was met before the
 * timeout, and the rejected duplicate submissions seen on the way (not results: the requests their
 * ids belong to are answered by their own completions).
 */
public record CollectResult(List<Completion> completions, Set<String> missing, boolean complete, long undecodableRecords,
                            List<DuplicateRejection> duplicateRejections) {
    public CollectResult {
        completions = List.copyOf(completions);
        missing = Set.copyOf(missing);
        duplicateRejections = List.copyOf(duplicateRejections);
    }
}
