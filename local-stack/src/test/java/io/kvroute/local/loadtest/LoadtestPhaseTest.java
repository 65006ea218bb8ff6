package io.kvroute.local.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LoadtestPhaseTest {

    @Test
    void shouldDivideEachRolesCpuByTheRecordsAndByTheTimeBetweenTheFirstAndTheLast() {
        // 1,001 records seen over 10 s; the router used 5 CPU seconds meanwhile, the broker 2
        LoadtestReport.Phase phase = new LoadtestReport.Phase(1001, 1001, new Span(1001, 0, 10_000), 0,
                Map.of(LoadtestReport.ROUTER, 5.0, LoadtestReport.BROKER, 2.0), 0);

        assertThat(phase.cpuMicrosPerRecord(LoadtestReport.ROUTER)).isEqualTo(5_000.0);
        assertThat(phase.coresBusy(LoadtestReport.ROUTER)).isEqualTo(0.5);
        assertThat(phase.coresBusy(LoadtestReport.BROKER)).isEqualTo(0.2);
        assertThat(phase.coresBusy(LoadtestReport.LOADTEST)).as("not measured").isEqualTo(-1.0);
    }

    @Test
    void shouldNotDivideByATimeThatDidNotPass() {
        LoadtestReport.Phase phase = new LoadtestReport.Phase(1, 1, new Span(1, 5, 5), 0, Map.of(LoadtestReport.ROUTER, 1.0), 0);

        assertThat(phase.coresBusy(LoadtestReport.ROUTER)).isEqualTo(-1.0);
        assertThat(phase.cpuMicrosPerRecord(LoadtestReport.ROUTER)).isEqualTo(-1.0);
    }
}
