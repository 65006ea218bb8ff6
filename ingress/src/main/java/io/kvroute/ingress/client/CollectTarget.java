package io.kvroute.ingress.client;

import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;

/**
 * What a {@link ResponseCollector} waits for: the results of known request ids, a number of
 * results (any requests), or everything already on the topic when collecting starts.
 */
public final class CollectTarget {
    private final Set<String> ids;
    private final int count;

    private CollectTarget(Set<String> ids, int count) {
        this.ids = ids;
        this.count = count;
    }

    public static CollectTarget ids(Set<String> requestIds) {
        return new CollectTarget(Set.copyOf(Objects.requireNonNull(requestIds, "requestIds")), requestIds.size());
    }

    public static CollectTarget count(int results) {
        if (results < 0) {
            throw new IllegalArgumentException("expected result count must not be negative, was " + results);
        }
        return new CollectTarget(null, results);
    }

    /** Everything readable when the collect starts; done once the reader reaches those offsets. */
    public static CollectTarget available() {
        return new CollectTarget(null, -1);
    }

    public boolean isIds() {
        return ids != null;
    }

    public Set<String> requestIds() {
        return ids == null ? Set.of() : ids;
    }

    /** The number of results expected, when known. */
    public OptionalInt expected() {
        return count < 0 ? OptionalInt.empty() : OptionalInt.of(count);
    }

    boolean tracks(String requestId) {
        return ids == null || ids.contains(requestId);
    }
}
