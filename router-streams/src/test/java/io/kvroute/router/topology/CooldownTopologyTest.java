package io.kvroute.router.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.router.config.RouterConfig;
import io.kvroute.router.metrics.RouterMetrics;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rate-limit cool-downs from telemetry: a worker's own, and a shared pool's for its whole region. */
class CooldownTopologyTest {
    @TempDir
    Path stateDir;

    private TopologyHarness harness;

    @AfterEach
    void close() {
        harness.close();
    }

    private void report(String worker, String region, long rateLimitedUntilMs) {
        harness.report(Records.telemetry(worker, region, List.of(0), harness.now())
                .setRateLimitedUntilMs(rateLimitedUntilMs == 0 ? null : rateLimitedUntilMs));
    }

    @Test
    void shouldGiveNoWorkToAWorkerReportingRateLimitingUntilItsCooldownEnds() {
        harness = new TopologyHarness(stateDir, Map.of());
        long until = harness.now() + 5_000;
        report("east-1", "us-east", until);
        report("east-2", "us-east", 0);

        for (int i = 0; i < 5; i++) {
            harness.send(Records.request("req-" + i, harness.now()).setAllowedRegions(List.of("us-east")).build());
        }

        assertThat(harness.dispatched("us-east").readValuesToList()).extracting(d -> d.getWorkerId()).containsOnly("east-2").hasSize(5);

        harness.send(Records.request("cooling", harness.now()).setAllowedRegions(List.of("us-east")).build());
        assertThat(harness.dispatched("us-east").readValue().getWorkerId()).isEqualTo("east-2");

        harness.advance(5_001);
        report("east-1", "us-east", until);
        harness.send(Records.request("after", harness.now()).setAllowedRegions(List.of("us-east")).build());
        assertThat(harness.dispatched("us-east").readValue().getWorkerId())
                .as("east-2's telemetry is stale; east-1's cool-down is over").isEqualTo("east-1");
    }

    @Test
    void shouldCapHowLongOneRecordCanCoolASharedRegion() {
        harness = new TopologyHarness(stateDir, Map.of("router.region.profiles", "provider@60:0.10:shared"));
        report("provider-1", "provider", harness.now() + 86_400_000);
        harness.send(Records.request("to-provider", harness.now()).setAllowedRegions(List.of("provider")).build());
        assertThat(harness.dispatched("provider").isEmpty()).isTrue();

        harness.advance(RouterConfig.DEFAULT_TELEMETRY_MAX_RATE_LIMIT_MS + 1);
        report("provider-2", "provider", 0);
        harness.send(Records.request("later", harness.now()).setAllowedRegions(List.of("provider")).build());

        // (the first request waited past router.parked.max.ms meanwhile)
        assertThat(harness.dispatched("provider").readValuesToList()).extracting(d -> d.getRequest().getRequestId())
                .as("a day's rate limit in one record cools the region for router.telemetry.max.rate.limit.ms at most")
                .containsExactly("later");
    }

    @Test
    void shouldCoolAWholeSharedRegionWhenOneOfItsWorkersReportsRateLimiting() {
        harness = new TopologyHarness(stateDir, Map.of("router.region.profiles", "provider@60:0.10:shared,us-east@5:0.30"));
        long until = harness.now() + 5_000;
        report("provider-1", "provider", until);
        report("provider-2", "provider", 0);
        report("east-1", "us-east", until);
        report("east-2", "us-east", 0);

        harness.send(Records.request("to-east", harness.now()).setAllowedRegions(List.of("us-east")).build());
        harness.send(Records.request("to-provider", harness.now()).setAllowedRegions(List.of("provider")).build());

        assertThat(harness.dispatched("us-east").readValue().getWorkerId()).as("us-east is not one pool").isEqualTo("east-2");
        assertThat(harness.dispatched("provider").isEmpty()).as("provider-2 shares provider-1's exhausted quota").isTrue();
        assertThat(harness.metrics.registry().counter(RouterMetrics.REGIONS_COOLED, "region", "provider").count()).isEqualTo(1.0);
        assertThat(harness.metrics.registry().find(RouterMetrics.REGIONS_COOLED).tag("region", "us-east").counter()).isNull();

        harness.advance(4_000);
        report("provider-2", "provider", 0);
        harness.advance(500);
        assertThat(harness.dispatched("provider").isEmpty()).isTrue();

        harness.advance(600);
        report("provider-2", "provider", 0);
        harness.advance(100);
        assertThat(harness.dispatched("provider").readValue().getRequest().getRequestId()).isEqualTo("to-provider");
    }
}
