package io.kvroute.router.routing;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which prompt blocks the router itself sent to which worker: an approximation of the workers'
 * prefix caches built only from the router's own decisions (as SGLang's router and the Gateway
 * API Inference Extension do). Bounded to {@code capacity} (block, worker) pairs; the least
 * recently routed pair is trimmed first. Lookups do not refresh recency: only routing does.
 * Not thread-safe: one index per routing processor.
 */
public final class ApproximatePrefixIndex {
    private final int capacity;
    private final LinkedHashMap<BlockOnWorker, Long> lastUseMs;

    public ApproximatePrefixIndex(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
        this.lastUseMs = new LinkedHashMap<>(Math.min(capacity, 1 << 16), 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<BlockOnWorker, Long> eldest) {
                return size() > ApproximatePrefixIndex.this.capacity;
            }
        };
    }

    /** Records that the blocks {@code hashes} were routed to {@code workerId} at {@code nowMs}. */
    public void record(String workerId, long[] hashes, long nowMs) {
        for (long hash : hashes) {
            BlockOnWorker key = new BlockOnWorker(workerId, hash);
            lastUseMs.remove(key);
            lastUseMs.put(key, nowMs);
        }
    }

    /** Number of leading blocks of {@code hashes} that were routed to {@code workerId}. */
    public int longestMatch(String workerId, long[] hashes) {
        int matched = 0;
        for (long hash : hashes) {
            if (!lastUseMs.containsKey(new BlockOnWorker(workerId, hash))) {
                break;
            }
            matched++;
        }
        return matched;
    }

    public int size() {
        return lastUseMs.size();
    }

    public int capacity() {
        return capacity;
    }

    private record BlockOnWorker(String workerId, long hash) {
    }
}
