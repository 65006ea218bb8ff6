package io.kvroute.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class FairnessTest {
    @Test
    void shouldGiveJainsIndexOneForEqualSharesAndOneOverNWhenOneTakesAll() {
        assertThat(Fairness.jain(new double[] {2, 2, 2, 2})).isEqualTo(1.0);
        assertThat(Fairness.jain(new double[] {1, 0, 0, 0})).isEqualTo(0.25);
        assertThat(Fairness.jain(new double[] {1, 2})).isCloseTo(0.9, within(1e-9));
    }

    @Test
    void shouldFillMaxMinSharesFromTheSmallestDemandUp() {
        assertThat(Fairness.maxMinShares(new double[] {10, 1, 100, 1}, 30)).containsExactly(10, 1, 18, 1);
        assertThat(Fairness.maxMinShares(new double[] {10, 10}, 8)).containsExactly(4, 4);
    }

    @Test
    void shouldScoreServiceAgainstFairSharesNotAgainstDemand() {
        double[] demand = {100, 10, 10};
        assertThat(Fairness.jainAgainstFairShare(new double[] {20, 10, 10}, demand)).isEqualTo(1.0);
        assertThat(Fairness.jainAgainstFairShare(new double[] {36, 2, 2}, demand)).isLessThan(0.6);
    }
}
