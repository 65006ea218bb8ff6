package io.kvroute.router.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RobustRegressionTest {
    private static final double[] WIDE = {1_000, 1_000, 1_000};

    @Test
    void shouldRecoverCoefficientsFromNoisyObservationsDespiteOutliers() {
        RobustRegression fit = new RobustRegression(new double[3], WIDE, 0.998);
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 3_000; i++) {
            double[] x = {1.0, random.nextDouble(0, 8), random.nextDouble(0, 30)};
            double y = 6.5 + 20.0 * x[1] + 1.3 * x[2] + random.nextDouble(-2, 2);
            // one in twenty waited behind something the features cannot see
            fit.observe(x, i % 20 == 0 ? y + 2_000 : y);
        }
        assertThat(fit.coefficients()).containsExactly(new double[] {6.5, 20.0, 1.3}, within(0.6));
    }

    @Test
    void shouldKeepCoefficientsNonNegativeWhenFeaturesMoveTogether() {
        RobustRegression fit = new RobustRegression(new double[3], WIDE, 0.998);
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 2_000; i++) {
            double sequences = random.nextDouble(10, 80);
            // context grows with the sequences: an unconstrained fit may trade a big coefficient against a negative one
            double[] x = {1.0, sequences / 100, sequences * 7_000 / 1e5 * random.nextDouble(0.97, 1.03)};
            fit.observe(x, 6.5 + 0.44 * x[1] + 7.6 * x[2]);
        }
        double[] c = fit.coefficients();
        assertThat(java.util.Arrays.stream(c).min().orElseThrow()).isGreaterThanOrEqualTo(0.0);
        double[] probe = {1.0, 0.65, 4.55};
        assertThat(c[0] * probe[0] + c[1] * probe[1] + c[2] * probe[2]).isCloseTo(6.5 + 0.44 * 0.65 + 7.6 * 4.55, within(0.5));
    }

    @Test
    void shouldFollowAChangeWithinTheRunsItRemembers() {
        RobustRegression fit = new RobustRegression(new double[] {0.0}, new double[] {100}, 1.0 - 1.0 / 200);
        for (int i = 0; i < 2_000; i++) {
            fit.observe(new double[] {1.0}, 10.0);
        }
        assertThat(fit.coefficients()[0]).isCloseTo(10.0, within(0.01));
        for (int i = 0; i < 1_000; i++) {
            fit.observe(new double[] {1.0}, 20.0);
        }
        assertThat(fit.coefficients()[0]).isCloseTo(20.0, within(0.5));
    }

    @Test
    void shouldStayAtThePriorUntilObservationsTellOtherwise() {
        RobustRegression fit = new RobustRegression(new double[] {5.0, 2.0}, new double[] {1.0, 1.0}, 0.99);
        assertThat(fit.coefficients()).containsExactly(5.0, 2.0);
        fit.observe(new double[] {1.0, Double.NaN}, 3.0);
        fit.observe(new double[] {1.0, 1.0}, Double.POSITIVE_INFINITY);
        assertThat(fit.observations()).isZero();
        assertThat(fit.coefficients()).containsExactly(5.0, 2.0);
    }
}
