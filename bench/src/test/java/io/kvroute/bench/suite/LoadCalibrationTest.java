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

    @Test
    void shouldFindTheScaleAtWhichRoundRobinKeepsTheFleetAsBusyAsAsked() {
        List<TraceRequest> trace = TenantWorkload.generate(TenantWorkload.Spec.llmdDefaults(400, 38.0, 7), TenantResidency.NONE);
        LoadCalibration calibration = new LoadCalibration(trace, SimConfig.defaults().withFleet(FleetSpec.parse("a=2@5")));

        double light = calibration.scaleFor(0.80, 1.0);
        double heavy = calibration.scaleFor(0.95, 1.0);

        assertThat(calibration.busy(light)).isCloseTo(0.80, within(0.03));
        assertThat(calibration.busy(heavy)).isCloseTo(0.95, within(0.03));
        assertThat(heavy).isGreaterThan(light);
    }
}
