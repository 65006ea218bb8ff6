package io.kvroute.bench.sim;

import java.util.Arrays;

/** Percentiles of a latency sample in ms (nearest rank; 0 for an empty sample). */
public record Latency(double p50, double p90, double p99, double mean) {
    public static final Latency EMPTY = new Latency(0, 0, 0, 0);

    public static Latency of(long[] samplesMs) {
        if (samplesMs.length == 0) {
            return EMPTY;
        }
        long[] sorted = samplesMs.clone();
        Arrays.sort(sorted);
        return new Latency(nearestRank(sorted, 0.50), nearestRank(sorted, 0.90), nearestRank(sorted, 0.99),
                Arrays.stream(sorted).average().orElse(0));
    }

    /** The smallest sample with at least {@code q} of the sample at or below it. */
    public static double nearestRank(long[] sorted, double q) {
        return sorted[nearestRankIndex(sorted.length, q)];
    }

    /** The index in a sorted sample of {@code n} (at least 1) of its nearest-rank {@code q} quantile. */
    public static int nearestRankIndex(int n, double q) {
        int rank = (int) Math.ceil(q * n);
        return Math.max(0, Math.min(n - 1, rank - 1));
    }
}
