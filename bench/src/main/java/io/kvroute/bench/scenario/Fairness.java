package io.kvroute.bench.scenario;

import java.util.Arrays;

/** Fairness measures over tenants: max-min fair shares of a capacity, and Jain's index. */
public final class Fairness {
    private Fairness() {
    }

    /**
     * Jain's fairness index (Σx)² / (n·Σx²): 1 when all {@code x} are equal, 1/n when one takes all.
     * 1 for an empty or all-zero input.
     */
    public static double jain(double[] x) {
        double sum = 0;
        double squares = 0;
        for (double v : x) {
            sum += v;
            squares += v * v;
        }
        return squares == 0 ? 1.0 : sum * sum / (x.length * squares);
    }

    /**
     * Max-min fair shares of {@code capacity} among tenants demanding {@code demand}: water-filling,
     * no tenant gets more than it asked for, the rest is split evenly among those who want more.
     */
    public static double[] maxMinShares(double[] demand, double capacity) {
        int n = demand.length;
        double[] share = new double[n];
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Double.compare(demand[a], demand[b]));
        double left = capacity;
        for (int k = 0; k < n; k++) {
            int i = order[k];
            double even = left / (n - k);
            share[i] = Math.min(demand[i], even);
            left -= share[i];
        }
        return share;
    }

    /** Jain's index of each tenant's served amount against its max-min fair share of what was served in total. */
    public static double jainAgainstFairShare(double[] served, double[] demand) {
        double capacity = Arrays.stream(served).sum();
        double[] share = maxMinShares(demand, capacity);
        double[] x = new double[served.length];
        for (int i = 0; i < x.length; i++) {
            x[i] = share[i] <= 0 ? 1.0 : served[i] / share[i];
        }
        return jain(x);
    }
}
