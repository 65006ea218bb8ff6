package io.kvroute.local.demo;

import java.util.Arrays;

/** Nearest-rank percentiles of a sample. */
public final class Percentiles {
    private final long[] sorted;

    public Percentiles(long[] values) {
        this.sorted = values.clone();
        Arrays.sort(sorted);
    }

    public long at(double percentile) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(percentile / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    public int count() {
        return sorted.length;
    }
}
