package io.kvroute.worker.consumer.internal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * For the most recently re-placed requests (at most {@code capacity}, the oldest forgotten
 * first), the dispatch attempt below which runs are void: the router placed the request again
 * with that attempt. Thread-safe: the cancellation thread adds, the poll thread asks.
 */
public final class SupersededAttempts {
    public static final int DEFAULT_CAPACITY = 100_000;

    private final int capacity;
    private final LinkedHashMap<String, Integer> belowAttempt = new LinkedHashMap<>();

    public SupersededAttempts(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
    }

    /** Attempts of {@code requestId} below {@code attempt} are void (a lower bound than one already known changes nothing). */
    public synchronized void add(String requestId, int attempt) {
        Integer known = belowAttempt.remove(requestId);
        belowAttempt.put(requestId, known == null ? attempt : Math.max(known, attempt));
        if (belowAttempt.size() > capacity) {
            Map.Entry<String, Integer> oldest = belowAttempt.entrySet().iterator().next();
            belowAttempt.remove(oldest.getKey());
        }
    }

    /** True if dispatch attempt {@code attempt} of {@code requestId} has been superseded by a re-placement. */
    public synchronized boolean isVoid(String requestId, int attempt) {
        Integer below = belowAttempt.get(requestId);
        return below != null && attempt < below;
    }
}
