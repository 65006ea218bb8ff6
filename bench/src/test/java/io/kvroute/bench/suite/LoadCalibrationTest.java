package io.kvroute.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.bench.sim.SimConfig;
import io.kvroute.bench.trace.TenantResidency;
import io.kvroute.bench.trace.TenantWorkload;
import io.kvroute.bench.trace.TraceRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoadCalibrationTest {
    private final List<TraceRequest> trace = TenantWorkload.generate(TenantWorkload.Spec.llmdDefaults(400, 38.0, 7), TenantResidency.NONE);
    private final LoadCalibration calibration = new LoadCalibration(trace, SimConfig.defaults().withFleet(FleetSpec.parse("a=2@5")));

    @Test
    void shouldFindTheLowestScaleAtWhichRoundRobinKeepsTheFleetAsBusyPrefillingAsAsked() {
        double least = calibration.busy(1.0 / LoadCalibration.RANGE);
        double most = calibration.busy(LoadCalibration.RANGE);
        double lightTarget = least + 0.3 * (most - least);
        double heavyTarget = least + 0.8 * (most - least);

        double light = calibration.scaleFor(lightTarget, 1.0);
        double heavy = calibration.scaleFor(heavyTarget, 1.0);

        assertThat(most - least).as("the share grows with the load").isGreaterThan(0.2);
        assertThat(calibration.busy(light)).isCloseTo(lightTarget, within(0.05));
        assertThat(calibration.busy(heavy)).isCloseTo(heavyTarget, within(0.05));
        assertThat(heavy).isGreaterThan(light);
        assertThat(calibration.busy(light / 2)).as("half the load prefills less").isLessThan(calibration.busy(light));
    }

    @Test
    void shouldStopAtTheEndOfItsRangeWhenTheTargetIsOutOfReach() {
        double scale = calibration.scaleFor(1.01, 1.0);

        assertThat(scale).isEqualTo(LoadCalibration.RANGE);
    }
}
