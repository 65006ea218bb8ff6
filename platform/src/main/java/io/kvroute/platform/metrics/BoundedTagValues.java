package io.kvroute.platform.metrics;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The values one metric tag may take, bounded: the first {@code max} distinct values are kept as they are, any later
 * one is reported as {@value #OTHER}. A tag whose values come from records (tenant names) must not make a registry,
 * and a Prometheus scrape, grow with whatever a sender writes.
 */
public final class BoundedTagValues {
    public static final String OTHER = "other";

    private final int max;
    private final Set<String> kept = ConcurrentHashMap.newKeySet();

    public BoundedTagValues(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("a tag needs room for at least one value, was " + max);
        }
        this.max = max;
    }

    /** {@code value} if it is kept or there is room for it, else {@value #OTHER}. */
    public String of(String value) {
        String v = value == null ? "" : value;
        if (kept.contains(v)) {
            return v;
        }
        synchronized (kept) {
            if (kept.size() < max) {
                kept.add(v);
                return v;
            }
        }
        return OTHER;
    }
}
