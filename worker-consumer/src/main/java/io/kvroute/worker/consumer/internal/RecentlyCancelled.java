package io.kvroute.worker.consumer.internal;

import java.util.LinkedHashSet;
import java.util.Iterator;

/**
 * The ids of the most recently cancelled requests, at most {@code capacity} of them (the oldest
 * is forgotten first), so a dispatch record read after its cancel is answered without running.
 * Thread-safe: the cancellation thread adds, the poll thread asks.
 */
public final class RecentlyCancelled {
    public static final int DEFAULT_CAPACITY = 100_000;

    private final int capacity;
    private final LinkedHashSet<String> ids = new LinkedHashSet<>();

    public RecentlyCancelled(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
    }

    public synchronized void add(String requestId) {
        ids.remove(requestId);
        ids.add(requestId);
        if (ids.size() > capacity) {
            Iterator<String> oldest = ids.iterator();
            oldest.next();
            oldest.remove();
        }
    }

    public synchronized boolean contains(String requestId) {
        return ids.contains(requestId);
    }

    public synchronized int size() {
        return ids.size();
    }
}
