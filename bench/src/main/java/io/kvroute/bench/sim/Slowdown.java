package io.kvroute.bench.sim;

import java.util.Arrays;

/**
 * Percentiles (nearest rank) of the served requests' slowdown: each request's TTFT divided by its
 * own oracle TTFT ({@link Bounds}), so 1.0 is as fast as the request could have been served alone on
 * an idle GPU holding every block seen before, and 3.0 three times that. {@link #EMPTY} (zeros) when
 * no request was served.
 */
public record Slowdown(double p50, double p99) {
    public static final Slowdown EMPTY = new Slowdown(0, 0);

    public static Slowdown of(double[] ratios) {
        if (ratios.length == 0) {
            return EMPTY;
        }
        double[] sorted = ratios.clone();
        Arrays.sort(sorted);
        return new Slowdown(sorted[Latency.nearestRankIndex(sorted.length, 0.50)],
                sorted[Latency.nearestRankIndex(sorted.length, 0.99)]);
    }
}
