package io.kvroute.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.bench.sim.Bounds;
import io.kvroute.bench.sim.EstimateError;
import io.kvroute.bench.sim.Latency;
import io.kvroute.bench.sim.PolicyResult;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QualityVerdictTest {
    private static final double HIT_BOUND = 0.70;

    @Test
    void shouldJudgeP99AgainstTheBestP99BaselineAndP50AgainstTheLowestBaselineP50() {
        QualityVerdict verdict = QualityVerdict.of(report(200, 100,
                result("kvroute", 120, 300, 0.65),
                result("gie-weighted", 125, 400, 0.66),
                result("lmetric", 118, 450, 0.67))).orElseThrow();

        assertThat(verdict.bestP99Baseline().policy()).isEqualTo("gie-weighted");
        assertThat(verdict.bestP50Baseline().policy()).isEqualTo("lmetric");
        assertThat(verdict.p99Margin()).isEqualTo(0.25);
        assertThat(verdict.p99TargetMs()).isEqualTo(320.0);
        assertThat(verdict.meetsP99()).isTrue();
        assertThat(verdict.meetsP50()).as("120 ms is worse than lmetric's 118").isFalse();
        assertThat(verdict.hitRateShare()).isEqualTo(0.65 / HIT_BOUND);
        assertThat(verdict.meetsHitRate()).isTrue();
        assertThat(verdict.passed()).isFalse();
        assertThat(verdict.describe()).contains("25.0 % below gie-weighted's 400", "vs lmetric's 118 (not met)", "NOT MET")
                .doesNotContain("out of any policy's reach");
    }

    @Test
    void shouldPassWhenAllThreeHoldAndNotAtAHitRateUnderNinetyPercentOfTheBound() {
        assertThat(QualityVerdict.of(report(200, 100, result("kvroute", 100, 320, 0.63), result("gie-weighted", 110, 400, 0.7)))
                .orElseThrow().passed()).as("320 = 0.8 x 400, 0.63 = 0.9 x 0.70").isTrue();
        assertThat(QualityVerdict.of(report(200, 100, result("kvroute", 100, 320, 0.62), result("gie-weighted", 110, 400, 0.7)))
                .orElseThrow().meetsHitRate()).isFalse();
    }

    @Test
    void shouldNotPassARunWhereKvrouteLeftRequestsUncompleted() {
        PolicyResult shed = new PolicyResult("kvroute", 9, 1, 0, new Latency(100, 300, 300, 100), Latency.EMPTY, new long[0], 0.7, 0,
                1.0, 1.0, 10.0, Map.of(), 0, 0.5, EstimateError.NONE);
        QualityVerdict verdict = QualityVerdict.of(report(200, 100, shed, result("gie-weighted", 110, 400, 0.7))).orElseThrow();

        assertThat(verdict.meetsP99()).isTrue();
        assertThat(verdict.passed()).isFalse();
        assertThat(verdict.describe()).contains("only 9 of 10 requests completed", "NOT MET");
    }

    @Test
    void shouldSayWhenTheP99TargetIsBelowTheOracleP99() {
        QualityVerdict verdict = QualityVerdict.of(report(2695, 100,
                result("kvroute", 110, 3143, 0.6), result("dynamo-kv", 240, 3330, 0.5))).orElseThrow();

        assertThat(verdict.p99TargetOutOfReach()).isTrue();
        assertThat(verdict.describe()).contains("out of any policy's reach: the oracle p99 is 2695");
    }

    @Test
    void shouldGiveNoVerdictWithoutKvrouteOrWithoutABaseline() {
        assertThat(QualityVerdict.of(report(200, 100, result("gie-weighted", 1, 2, 0.5)))).isEmpty();
        assertThat(QualityVerdict.of(report(200, 100, result("kvroute", 1, 2, 0.5)))).isEmpty();
    }

    private static BenchReport report(double oracleP99, double oracleP50, PolicyResult... results) {
        Map<String, PolicyResult> policies = new LinkedHashMap<>();
        for (PolicyResult r : results) {
            policies.put(r.policy(), r);
        }
        return new BenchReport("t", "tenants", 10, "a=1@5", "e", 1.0, 42, 2000, 32, policies,
                new Bounds(HIT_BOUND, new Latency(oracleP50, oracleP50, oracleP99, oracleP50)));
    }

    private static PolicyResult result(String policy, double p50, double p99, double hitRate) {
        return new PolicyResult(policy, 10, 0, 0, new Latency(p50, p99, p99, p50), Latency.EMPTY, new long[0], hitRate, 0, 1.0, 1.0,
                10.0, Map.of(), 0, 0.5, EstimateError.NONE);
    }
}
