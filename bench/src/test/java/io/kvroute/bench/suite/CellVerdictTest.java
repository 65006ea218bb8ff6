package io.kvroute.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.bench.report.BenchReport;
import io.kvroute.bench.sim.Bounds;
import io.kvroute.bench.sim.EstimateError;
import io.kvroute.bench.sim.Latency;
import io.kvroute.bench.sim.PolicyResult;
import io.kvroute.bench.sim.Slowdown;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CellVerdictTest {

    private static PolicyResult result(String policy, double excessP50, double excessP99, double hitRate, int completed) {
        return new PolicyResult(policy, completed, 100 - completed, 0, new Latency(100, 200, 300, 120), new Latency(1, 2, 3, 2),
                new long[0], hitRate, 0, 1.0, 1.0, 10.0, Map.of("a", completed), 0, 0.9, EstimateError.NONE, new int[0],
                new Latency(excessP50, excessP50 * 2, excessP99, excessP50), Slowdown.EMPTY);
    }

    /** A run of 100 requests with a hit-rate bound of 0.5. */
    private static BenchReport run(long seed, PolicyResult... results) {
        Map<String, PolicyResult> policies = new LinkedHashMap<>();
        for (PolicyResult r : results) {
            policies.put(r.policy(), r);
        }
        return new BenchReport("t", "tenants", 100, "a=1@5", "llama-8b-h100", 1.0, seed, 2_000, 32, policies,
                new Bounds(0.5, Latency.EMPTY));
    }

    @Test
    void shouldJudgeTheP99ExcessAgainstEachSeedsBestBaselineByMedianAndWorstSeed() {
        List<BenchReport> runs = List.of(
                run(1, result("kvroute", 10, 50, 0.48, 100), result("round-robin", 30, 500, 0.2, 100), result("lmetric", 12, 100, 0.5, 100)),
                run(2, result("kvroute", 10, 70, 0.47, 100), result("round-robin", 30, 500, 0.2, 100), result("lmetric", 8, 100, 0.5, 100)),
                run(3, result("kvroute", 10, 55, 0.49, 100), result("round-robin", 30, 100, 0.2, 100), result("lmetric", 9, 110, 0.5, 100)));

        CellVerdict verdict = CellVerdict.of(runs, true, List.of(40.0, 95.0, 100.0));

        assertThat(verdict.p99Ratios()).containsExactly(0.5, 0.7, 0.55);
        assertThat(verdict.bestBaselines()).containsExactly("lmetric", "lmetric", "round-robin");
        assertThat(verdict.medianP99Ratio()).isEqualTo(0.55);
        assertThat(verdict.worstP99Ratio()).isEqualTo(0.7);
        assertThat(verdict.p50Slacks()).containsExactly(-2.0, 2.0, 1.0);
        assertThat(verdict.medianHitShare()).isEqualTo(0.96);
        assertThat(verdict.passed()).isTrue();
        assertThat(verdict.idealRatios()).as("the ideal balancer against each seed's best baseline").containsExactly(0.4, 0.95, 1.0);
        assertThat(verdict.medianIdealRatio()).isEqualTo(0.95);
    }

    @Test
    void shouldFailOnOneBadSeedAnIncompleteRunOrTooFewHits() {
        BenchReport good = run(1, result("kvroute", 10, 50, 0.48, 100), result("lmetric", 12, 100, 0.5, 100));
        BenchReport badSeed = run(2, result("kvroute", 10, 85, 0.48, 100), result("lmetric", 12, 100, 0.5, 100));
        BenchReport shed = run(3, result("kvroute", 10, 50, 0.48, 99), result("lmetric", 12, 100, 0.5, 100));
        BenchReport cold = run(4, result("kvroute", 10, 50, 0.40, 100), result("lmetric", 12, 100, 0.5, 100));

        assertThat(CellVerdict.of(List.of(good, good, badSeed), true, ideal(3)).p99Met()).as("worst seed 0.85 > 0.8").isFalse();
        assertThat(CellVerdict.of(List.of(good, shed), true, ideal(2)).passed()).isFalse();
        assertThat(CellVerdict.of(List.of(cold), true, ideal(1)).hitMet()).as("80 % of the bound").isFalse();
        assertThat(CellVerdict.of(List.of(cold), false, ideal(1)).hitMet()).as("no prefix information: no hit criterion").isTrue();
    }

    @Test
    void shouldTakeABaselineThatAddsNothingAsMatchedOnlyByAddingNothing() {
        assertThat(CellVerdict.ratio(0, 0)).isEqualTo(1.0);
        assertThat(CellVerdict.ratio(5, 0)).isInfinite();
        assertThatThrownBy(() -> CellVerdict.of(List.of(run(1, result("kvroute", 1, 2, 0.5, 100))), true, ideal(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("baseline");
    }

    @Test
    void shouldRefuseAnIdealFigureMissingForARun() {
        BenchReport good = run(1, result("kvroute", 10, 50, 0.48, 100), result("lmetric", 12, 100, 0.5, 100));
        assertThatThrownBy(() -> CellVerdict.of(List.of(good, good), true, ideal(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one ideal balancer p99 per run");
    }

    private static List<Double> ideal(int runs) {
        return java.util.Collections.nCopies(runs, 10.0);
    }
}
