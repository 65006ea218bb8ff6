package io.kvroute.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.kvroute.bench.sim.SimConfig;
import io.kvroute.bench.sim.SimTraces;
import org.junit.jupiter.api.Test;

class LoadCalibrationTest {
    private final LoadCalibration calibration = new LoadCalibration(SimTraces.mooncake(1_000), SimConfig.defaults());

    @Test
    void shouldFindTheLowestScaleAtWhichRoundRobinKeepsTheFleetAsBusyAsAsked() {
        double light = calibration.scaleFor(0.85, 3.0);
        double heavy = calibration.scaleFor(0.92, 3.0);

        assertThat(calibration.busy(light)).isCloseTo(0.85, within(0.02));
        assertThat(calibration.busy(heavy)).isCloseTo(0.92, within(0.02));
        assertThat(heavy).isGreaterThan(light);
        assertThat(calibration.busy(light / 2)).as("half the load keeps it less busy").isLessThan(calibration.busy(light));
    }

    @Test
    void shouldStopAtTheEndOfItsRangeWhenTheTargetIsOutOfReach() {
        assertThat(calibration.scaleFor(1.01, 3.0)).isEqualTo(3.0 * LoadCalibration.RANGE);
    }
}
