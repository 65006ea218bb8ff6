package io.kvroute.bench.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How far a policy's own TTFT estimates were from what happened: for each decision whose placement
 * carried an estimate for the chosen GPU ({@code ttft_ms}, kvroute's), the realized time from the
 * decision to the first token back from that GPU, less the dispatch latency (which the estimate
 * leaves out: the router does not know when Kafka delivers), minus the estimate.
 * Positive means slower than estimated.
 *
 * @param biasMs        mean error
 * @param meanAbsMs     mean absolute error
 * @param p90AbsMs      90 % of the absolute errors are at most this
 * @param decisions     decisions with an estimate whose request completed; 0 when the policy gives none
 * @param biasByTenthMs the mean error over each tenth of those decisions in arrival order: how the estimate
 *                      improves as the router learns the engines' speed (fewer than ten entries for fewer decisions)
 * @param meanAbsByTenthMs the mean absolute error over each tenth, likewise
 */
public record EstimateError(double biasMs, double meanAbsMs, double p90AbsMs, int decisions, List<Double> biasByTenthMs,
                            List<Double> meanAbsByTenthMs) {
    public static final EstimateError NONE = new EstimateError(0, 0, 0, 0, List.of(), List.of());
    static final int PARTS = 10;

    public EstimateError {
        biasByTenthMs = List.copyOf(biasByTenthMs);
        meanAbsByTenthMs = List.copyOf(meanAbsByTenthMs);
    }

    /** @param errorsMs each decision's error, in arrival order */
    public static EstimateError of(double[] errorsMs) {
        if (errorsMs.length == 0) {
            return NONE;
        }
        int parts = Math.min(PARTS, errorsMs.length);
        List<Double> bias = new ArrayList<>(parts);
        List<Double> meanAbs = new ArrayList<>(parts);
        for (int p = 0; p < parts; p++) {
            int from = (int) ((long) errorsMs.length * p / parts);
            int to = (int) ((long) errorsMs.length * (p + 1) / parts);
            double sum = 0;
            double abs = 0;
            for (int i = from; i < to; i++) {
                sum += errorsMs[i];
                abs += Math.abs(errorsMs[i]);
            }
            bias.add(sum / (to - from));
            meanAbs.add(abs / (to - from));
        }
        double sum = 0;
        double absSum = 0;
        double[] abs = new double[errorsMs.length];
        for (int i = 0; i < errorsMs.length; i++) {
            sum += errorsMs[i];
            abs[i] = Math.abs(errorsMs[i]);
            absSum += abs[i];
        }
        Arrays.sort(abs);
        int n = errorsMs.length;
        return new EstimateError(sum / n, absSum / n, abs[Latency.nearestRankIndex(n, 0.9)], n, bias, meanAbs);
    }

    public boolean present() {
        return decisions > 0;
    }
}
