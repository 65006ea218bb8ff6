package io.kvroute.bench.suite;

import io.kvroute.bench.report.BenchReport;
import io.kvroute.bench.sim.PolicyResult;
import io.kvroute.router.routing.KvAwarePolicy;
import io.kvroute.router.routing.Policies;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * kvroute against the best baseline of each seed's run of one workload at one load, on what placement adds to each
 * request's own oracle TTFT ({@code ttft_excess_ms}):
 * <ul>
 *   <li>its p99 excess at most {@value #P99_MEDIAN_RATIO} of the best baseline's (the lowest p99 excess of the
 *       seed's run) at the median over seeds, and at most {@value #P99_WORST_RATIO} on every seed;</li>
 *   <li>its p50 excess no more than the lowest baseline p50 excess + {@value #P50_SLACK_MS} ms (median over seeds);</li>
 *   <li>where the workload carries prefix information, its hit rate at least {@value #HIT_SHARE} of the
 *       infinite-cache bound (median over seeds);</li>
 *   <li>every request completed (percentiles cover completed requests only).</li>
 * </ul>
 *
 * @param p99Ratios     per seed, kvroute's p99 excess / the best baseline's
 * @param p50Slacks     per seed, kvroute's p50 excess - the lowest baseline p50 excess, ms
 * @param hitShares     per seed, kvroute's hit rate / the bound (NaN without prefix information)
 * @param bestBaselines per seed, the baseline with the lowest p99 excess
 * @param idealP99ExcessMs per seed, the p99 excess of {@link io.kvroute.bench.sim.IdealBalancer} on the same requests:
 *                      not a criterion, it says how low placement alone could take the tail
 */
public record CellVerdict(List<Double> p99Ratios, List<Double> p50Slacks, List<Double> hitShares, List<String> bestBaselines,
                          boolean allCompleted, boolean hasPrefixes, List<Double> idealP99ExcessMs, List<Double> idealRatios) {
    public static final double P99_MEDIAN_RATIO = 0.6;
    public static final double P99_WORST_RATIO = 0.8;
    public static final double P50_SLACK_MS = 5.0;
    public static final double HIT_SHARE = 0.9;

    public static CellVerdict of(List<BenchReport> runs, boolean hasPrefixes, List<Double> idealP99ExcessMs) {
        if (idealP99ExcessMs.size() != runs.size()) {
            throw new IllegalArgumentException("one ideal balancer p99 per run, got " + idealP99ExcessMs.size() + " for " + runs.size());
        }
        List<Double> idealRatios = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        List<Double> slacks = new ArrayList<>();
        List<Double> hits = new ArrayList<>();
        List<String> best = new ArrayList<>();
        boolean completed = true;
        for (int k = 0; k < runs.size(); k++) {
            BenchReport run = runs.get(k);
            PolicyResult kvroute = run.policies().get(KvAwarePolicy.NAME);
            List<PolicyResult> baselines = run.policies().values().stream()
                    .filter(r -> Policies.baselineNames().contains(r.policy())).toList();
            if (kvroute == null || baselines.isEmpty()) {
                throw new IllegalArgumentException("a suite run needs kvroute and at least one baseline");
            }
            PolicyResult bestP99 = baselines.stream().min(Comparator.comparingDouble(r -> r.ttftExcessMs().p99())).orElseThrow();
            double bestP50 = baselines.stream().mapToDouble(r -> r.ttftExcessMs().p50()).min().orElseThrow();
            ratios.add(ratio(kvroute.ttftExcessMs().p99(), bestP99.ttftExcessMs().p99()));
            idealRatios.add(ratio(idealP99ExcessMs.get(k), bestP99.ttftExcessMs().p99()));
            slacks.add(kvroute.ttftExcessMs().p50() - bestP50);
            double bound = run.bounds().prefixHitRateUpper();
            hits.add(hasPrefixes && bound > 0 ? kvroute.prefixHitRate() / bound : Double.NaN);
            best.add(bestP99.policy());
            completed &= kvroute.completed() == run.requests();
        }
        return new CellVerdict(ratios, slacks, hits, best, completed, hasPrefixes, List.copyOf(idealP99ExcessMs), idealRatios);
    }

    /** {@code a / b}, with 0 / 0 = 1: a baseline that adds nothing is matched only by adding nothing too. */
    static double ratio(double a, double b) {
        if (b <= 0) {
            return a <= 0 ? 1.0 : Double.POSITIVE_INFINITY;
        }
        return a / b;
    }

    public double medianP99Ratio() {
        return median(p99Ratios);
    }

    public double worstP99Ratio() {
        return p99Ratios.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    public double medianIdealRatio() {
        return median(idealRatios);
    }

    public double medianP50Slack() {
        return median(p50Slacks);
    }

    public double medianHitShare() {
        return hasPrefixes ? median(hitShares) : Double.NaN;
    }

    public boolean p99Met() {
        return medianP99Ratio() <= P99_MEDIAN_RATIO && worstP99Ratio() <= P99_WORST_RATIO;
    }

    public boolean p50Met() {
        return medianP50Slack() <= P50_SLACK_MS;
    }

    public boolean hitMet() {
        return !hasPrefixes || medianHitShare() >= HIT_SHARE;
    }

    public boolean passed() {
        return p99Met() && p50Met() && hitMet() && allCompleted;
    }

    static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }
}
