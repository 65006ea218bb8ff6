package io.kvroute.bench.sim;

import java.util.Arrays;

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
 */
public record EstimateError(double biasMs, double meanAbsMs, double p90AbsMs, int decisions) {
    public static final EstimateError NONE = new EstimateError(0, 0, 0, 0);

    public static EstimateError of(double[] errorsMs) {
        if (errorsMs.length == 0) {
            return NONE;
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
        return new EstimateError(sum / n, absSum / n, abs[Latency.nearestRankIndex(n, 0.9)], n);
    }

    public boolean present() {
        return decisions > 0;
    }
}
