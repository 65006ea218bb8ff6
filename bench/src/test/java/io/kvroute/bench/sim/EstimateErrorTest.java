package io.kvroute.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class EstimateErrorTest {

    @Test
    void shouldGiveTheMeanTheMeanAbsoluteAndTheNinetiethPercentileOfAbsoluteErrors() {
        EstimateError error = EstimateError.of(new double[] {10, -20, 30, -40, 50, 0, 0, 0, 0, 100});

        assertThat(error.biasMs()).isCloseTo(13.0, within(1e-9));
        assertThat(error.meanAbsMs()).isCloseTo(25.0, within(1e-9));
        // absolute errors sorted: 0 0 0 0 10 20 30 40 50 100; the 9th of 10 is 50
        assertThat(error.p90AbsMs()).isEqualTo(50.0);
        assertThat(error.decisions()).isEqualTo(10);
        assertThat(error.present()).isTrue();
    }

    @Test
    void shouldBeAbsentWithoutEstimates() {
        assertThat(EstimateError.of(new double[0])).isEqualTo(EstimateError.NONE);
        assertThat(EstimateError.NONE.present()).isFalse();
    }
}
