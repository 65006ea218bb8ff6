package io.kvroute.router.routing;

import java.util.Objects;

/**
 * One worker's report of the prefix blocks its cache stored and evicted since its previous
 * report, in the router's Kafka-free model. The topology builds it from a {@code KvCacheEvent};
 * the simulator builds it directly. The arrays are copied in; equality is by array identity.
 *
 * @param sequence   per-worker counter; a value other than previous + 1 means reports were missed
 * @param allCleared the worker's cache is empty before {@code storedBlockHashes} are applied
 */
public record KvEvent(String workerId, long sequence, long[] storedBlockHashes, long[] evictedBlockHashes,
                      boolean allCleared) {

    public KvEvent {
        Objects.requireNonNull(workerId, "workerId");
        storedBlockHashes = storedBlockHashes == null ? new long[0] : storedBlockHashes.clone();
        evictedBlockHashes = evictedBlockHashes == null ? new long[0] : evictedBlockHashes.clone();
    }

    public static KvEvent stored(String workerId, long sequence, long... hashes) {
        return new KvEvent(workerId, sequence, hashes, new long[0], false);
    }

    public static KvEvent evicted(String workerId, long sequence, long... hashes) {
        return new KvEvent(workerId, sequence, new long[0], hashes, false);
    }

    public static KvEvent cleared(String workerId, long sequence) {
        return new KvEvent(workerId, sequence, new long[0], new long[0], true);
    }
}
