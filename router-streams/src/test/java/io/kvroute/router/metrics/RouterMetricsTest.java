package io.kvroute.router.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.router.routing.FleetView;
import io.kvroute.router.routing.WorkerSnapshot;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RouterMetricsTest {
    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final RouterMetrics metrics = new RouterMetrics(registry);
    private final FleetView fleet = new FleetView();
    private final AtomicLong now = new AtomicLong(100_000);

    @Test
    void shouldReportTheNewestTelemetryAgeAndWorkersOfEachRegion() {
        metrics.watchRegions(List.of("us-east", "eu-west"), fleet, now::get);
        fleet.put(WorkerSnapshot.builder("us-east-0", "us-east").observedAtMs(90_000).build());
        fleet.put(WorkerSnapshot.builder("us-east-1", "us-east").observedAtMs(99_000).build());
        now.set(101_000);

        assertThat(gauge(RouterMetrics.REGION_TELEMETRY_AGE, "us-east")).isEqualTo(2_000);
        assertThat(gauge(RouterMetrics.REGION_WORKERS, "us-east")).isEqualTo(2);
        assertThat(gauge(RouterMetrics.REGION_TELEMETRY_AGE, "eu-west")).as("no telemetry from it yet").isNaN();
        assertThat(gauge(RouterMetrics.REGION_WORKERS, "eu-west")).isZero();
    }

    @Test
    void shouldRegisterAlertedCountersAtZeroBeforeTheirFirstEvent() {
        metrics.watchRegions(List.of("us-east"), fleet, now::get);

        assertThat(registry.get(RouterMetrics.REQUESTS_REPLACED).tag(RouterMetrics.TAG_REGION, "us-east").counter().count()).isZero();
        assertThat(registry.get(RouterMetrics.REQUESTS_CANCELLED).counter().count()).isZero();
        assertThat(registry.get(RouterMetrics.REQUESTS_FORGOTTEN).counter().count()).isZero();
        metrics.replaced("us-east");
        assertThat(registry.get(RouterMetrics.REQUESTS_REPLACED).tag(RouterMetrics.TAG_REGION, "us-east").counter().count()).isOne();
    }

    private double gauge(String name, String region) {
        return registry.get(name).tag(RouterMetrics.TAG_REGION, region).gauge().value();
    }
}
