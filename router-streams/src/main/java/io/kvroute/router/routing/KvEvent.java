package io.kvroute.router.routing;

import java.util.Objects;

/**
 * One worker's report of the prefix blocks its cache stored and evicted since its previous
 * report, in the router's Kafka-free model. The topology builds it from a {@code KvCacheEvent};
 * the simulator builds it directly. The arrays are copied in; equality is by array identity.
 *
 * @param sequence             per-worker counter; a value other than previous + 1 means reports were missed
 * @param evictedBlockHashes   no longer held in any memory tier
 * @param offloadedBlockHashes held blocks now only in host memory (stored there, or moved out of GPU memory)
 * @param reloadedBlockHashes  blocks earlier offloaded that are in GPU memory again
 * @param allCleared           the worker's cache is empty before {@code storedBlockHashes} are applied
 */
public record KvEvent(String workerId, long sequence, long[] storedBlockHashes, long[] evictedBlockHashes,
                      long[] offloadedBlockHashes, long[] reloadedBlockHashes, boolean allCleared) {

    public KvEvent {
        Objects.requireNonNull(workerId, "workerId");
        storedBlockHashes = copy(storedBlockHashes);
        evictedBlockHashes = copy(evictedBlockHashes);
        offloadedBlockHashes = copy(offloadedBlockHashes);
        reloadedBlockHashes = copy(reloadedBlockHashes);
    }

    /** An event of a worker with one memory tier, or one that does not say. */
    public KvEvent(String workerId, long sequence, long[] storedBlockHashes, long[] evictedBlockHashes, boolean allCleared) {
        this(workerId, sequence, storedBlockHashes, evictedBlockHashes, null, null, allCleared);
    }

    private static long[] copy(long[] hashes) {
        return hashes == null ? new long[0] : hashes.clone();
    }

    public static KvEvent stored(String workerId, long sequence, long... hashes) {
        return new KvEvent(workerId, sequence, hashes, new long[0], false);
    }

    public static KvEvent evicted(String workerId, long sequence, long... hashes) {
        return new KvEvent(workerId, sequence, new long[0], hashes, false);
    }

    public static KvEvent offloaded(String workerId, long sequence, long... hashes) {
        return new KvEvent(workerId, sequence, null, null, hashes, null, false);
    }

    public static KvEvent reloaded(String workerId, long sequence, long... hashes) {
        return new KvEvent(workerId, sequence, null, null, null, hashes, false);
    }

    public static KvEvent cleared(String workerId, long sequence) {
        return new KvEvent(workerId, sequence, new long[0], new long[0], true);
    }
}
