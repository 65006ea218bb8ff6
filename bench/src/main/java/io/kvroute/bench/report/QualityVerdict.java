package io.kvroute.bench.report;

import io.kvroute.bench.sim.PolicyResult;
import io.kvroute.router.routing.KvAwarePolicy;
import io.kvroute.router.routing.Policies;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * kvroute against the baselines of one bench run, by the routing-quality claim: TTFT p99 at least
 * {@value #P99_MARGIN} (as a share) below the best baseline's, p50 no worse than the lowest
 * baseline p50, prefix hit rate at least {@value #HIT_RATE_SHARE} of the infinite-cache bound,
 * and every request of the run completed (percentiles cover completed requests only, so shedding
 * the slowest would otherwise pass).
 *
 * <p>It also says when the p99 target is out of reach of any policy that completes every request:
 * the oracle TTFT is a lower bound on each request's TTFT under any policy ({@link
 * io.kvroute.bench.sim.Bounds}), so such a policy's p99 is at least the oracle's.
 */
public record QualityVerdict(PolicyResult kvroute, PolicyResult bestP99Baseline, PolicyResult bestP50Baseline,
                             double hitRateBound, double oracleP99Ms, int requests) {
    public static final double P99_MARGIN = 0.20;
    public static final double HIT_RATE_SHARE = 0.90;

    /** The verdict of a report holding kvroute and at least one baseline; empty otherwise. */
    public static Optional<QualityVerdict> of(BenchReport report) {
        PolicyResult kvroute = report.policies().get(KvAwarePolicy.NAME);
        List<PolicyResult> baselines = report.policies().values().stream()
                .filter(r -> Policies.baselineNames().contains(r.policy())).toList();
        if (kvroute == null || baselines.isEmpty() || !report.observable()) {
            return Optional.empty();
        }
        return Optional.of(new QualityVerdict(kvroute,
                baselines.stream().min(Comparator.comparingDouble(r -> r.ttftMs().p99())).orElseThrow(),
                baselines.stream().min(Comparator.comparingDouble(r -> r.ttftMs().p50())).orElseThrow(),
                report.bounds().prefixHitRateUpper(), report.bounds().ttftOracleMs().p99(), report.requests()));
    }

    /** How far below the best baseline's p99 kvroute's is, as a share (negative: above it). */
    public double p99Margin() {
        return 1.0 - kvroute.ttftMs().p99() / bestP99Baseline.ttftMs().p99();
    }

    public double p99TargetMs() {
        return (1.0 - P99_MARGIN) * bestP99Baseline.ttftMs().p99();
    }

    /** The p99 target is below the oracle's p99: no policy can meet it on this run. */
    public boolean p99TargetOutOfReach() {
        return p99TargetMs() < oracleP99Ms;
    }

    public boolean meetsP99() {
        return kvroute.ttftMs().p99() <= p99TargetMs();
    }

    public boolean meetsP50() {
        return kvroute.ttftMs().p50() <= bestP50Baseline.ttftMs().p50();
    }

    public double hitRateShare() {
        return hitRateBound <= 0 ? 1.0 : kvroute.prefixHitRate() / hitRateBound;
    }

    public boolean meetsHitRate() {
        return hitRateShare() >= HIT_RATE_SHARE;
    }

    /** kvroute answered every request of the run with a completion. */
    public boolean completedAll() {
        return kvroute.completed() == requests;
    }

    public boolean passed() {
        return completedAll() && meetsP99() && meetsP50() && meetsHitRate();
    }

    /** One line: each criterion with its figures and whether it is met. */
    public String describe() {
        return String.format(Locale.ROOT,
                "kvroute vs best baselines: p99 %.0f ms, %.1f %% below %s's %.0f (target <= %.0f: %s)%s; "
                        + "p50 %.0f ms vs %s's %.0f (%s); hit rate %.0f %% of the bound (>= %.0f %%: %s)%s -> %s",
                kvroute.ttftMs().p99(), 100 * p99Margin(), bestP99Baseline.policy(), bestP99Baseline.ttftMs().p99(),
                p99TargetMs(), yes(meetsP99()),
                p99TargetOutOfReach() ? String.format(Locale.ROOT, ", out of any policy's reach: the oracle p99 is %.0f", oracleP99Ms) : "",
                kvroute.ttftMs().p50(), bestP50Baseline.policy(), bestP50Baseline.ttftMs().p50(), yes(meetsP50()),
                100 * hitRateShare(), 100 * HIT_RATE_SHARE, yes(meetsHitRate()),
                completedAll() ? "" : String.format(Locale.ROOT, "; only %d of %d requests completed", kvroute.completed(), requests),
                passed() ? "PASSED" : "NOT MET");
    }

    private static String yes(boolean met) {
        return met ? "met" : "not met";
    }
}
