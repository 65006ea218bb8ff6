package io.kvroute.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.bench.sim.RunLog;
import io.kvroute.bench.sim.SimConfig;
import io.kvroute.bench.sim.SimulationObserver;
import io.kvroute.bench.sim.Simulator;
import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.router.routing.KvAwarePolicy;
import io.kvroute.router.routing.RoutingSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScenariosTest {
    private static final long SEED = 42;

    @Test
    void shouldKeepEveryRequestInItsAllowedRegionsThroughAnOutageAndLoseNone() {
        ScenarioResult r = new RegionOutageScenario().run(SEED);

        assertThat(r.number("residency_constrained_requests")).isGreaterThan(300);
        assertThat(r.number("failovers")).isPositive();
        assertThat(r.number("residency_violations")).isZero();
        assertThat(r.number("lost")).isZero();
    }

    @Test
    void shouldMoveNewWorkOffAFailedRegionOnceItsTelemetryIsStale() {
        ScenarioResult r = new RegionOutageScenario().run(SEED);

        long bound = RoutingSettings.DEFAULT_TELEMETRY_TTL_MS + SimConfig.DEFAULT_TELEMETRY_INTERVAL_MS;
        assertThat(r.number("time_to_move_off_ms")).isPositive().isLessThanOrEqualTo(bound);
    }

    @Test
    void shouldHoldPinnedRequestsForTheirRegionInsteadOfFailingThemOver() {
        FleetSpec fleet = FleetSpec.parse(RegionOutageScenario.FLEET);
        List<TraceRequest> trace = RegionOutageScenario.trace(SEED);
        RunLog log = Simulator.run(KvAwarePolicy.NAME, trace, SimConfig.defaults().withFleet(fleet).withSeed(SEED),
                RegionOutageScenario.conditions(fleet), SimulationObserver.NONE).log();

        long euBankOutsideEuWest = log.placements().stream()
                .filter(p -> trace.get(p.index()).tenant().equals("eu-bank") && !p.region().equals("eu-west")).count();
        long usHealthOutsideUsEast = log.placements().stream()
                .filter(p -> trace.get(p.index()).tenant().equals("us-health") && !p.region().equals("us-east")).count();
        long usHealthRetried = log.placements().stream()
                .filter(p -> trace.get(p.index()).tenant().equals("us-health") && p.attempt() > 1).count();
        assertThat(euBankOutsideEuWest).isZero();
        assertThat(usHealthOutsideUsEast).isZero();
        assertThat(usHealthRetried).isPositive();
        assertThat(log.lostCount()).isZero();
    }

    @Test
    void shouldShareFairlyBetweenTenantsWithinQuotaOnlyWithTheFairQueue() {
        ScenarioResult r = new NoisyNeighbourScenario().run(SEED);

        assertThat(r.number("jain_fair")).isGreaterThanOrEqualTo(0.9);
        assertThat(r.number("jain_fifo")).isLessThan(r.number("jain_fair") - 0.1);
        assertThat(r.number("quiet_ttft_p99_fair_ms")).isLessThan(r.number("quiet_ttft_p99_fifo_ms") / 10);
        assertThat(r.number("lost_fair")).isZero();
        assertThat(r.number("lost_fifo")).isZero();
        assertThat(r.number("quota_waits_fair")).isPositive();
    }

    @Test
    void shouldServeInteractiveRequestsAheadOfBatchOnesWhenTheRouterHoldsAQueue() {
        List<TraceRequest> trace = ScenarioWorkload.generate(List.of(
                new ScenarioWorkload.TenantLoad("a", 60, 0.1, java.util.Set.of()),
                new ScenarioWorkload.TenantLoad("b", 60, 0.1, java.util.Set.of())), NoisyNeighbourScenario.SHAPE, 20_000, SEED);
        RunLog log = Simulator.run(KvAwarePolicy.NAME, trace, NoisyNeighbourScenario.config(SEED),
                NoisyNeighbourScenario.conditions(io.kvroute.bench.sim.Conditions.RouterQueue.FAIR), SimulationObserver.NONE).log();

        double interactive = Figures.ttft(log, i -> trace.get(i).priority().equals(TraceRequest.INTERACTIVE)).p99();
        double batch = Figures.ttft(log, i -> trace.get(i).priority().equals(TraceRequest.BATCH)).p99();
        assertThat(batch).isGreaterThan(5_000);
        assertThat(interactive).isLessThan(batch / 5);
        assertThat(log.lostCount()).isZero();
    }

    @Test
    void shouldLoseNoRequestWhenAPoolAnswers429AndCoolItDown() {
        ScenarioResult r = new Provider429Scenario().run(SEED);

        assertThat(r.number("rate_limited_answers")).isPositive();
        assertThat(r.number("lost")).isZero();
        assertThat(r.number("cooldown_ms")).isGreaterThanOrEqualTo(Provider429Scenario.RETRY_AFTER_MS)
                .isLessThanOrEqualTo(Provider429Scenario.LIMITED_TO_MS - Provider429Scenario.LIMITED_FROM_MS + Provider429Scenario.RETRY_AFTER_MS);
        @SuppressWarnings("unchecked")
        Map<String, Integer> calm = (Map<String, Integer>) r.figures().get("dispatches_per_region_without_429");
        @SuppressWarnings("unchecked")
        Map<String, Integer> limited = (Map<String, Integer>) r.figures().get("dispatches_per_region_with_429");
        assertThat(calm).containsOnlyKeys(Provider429Scenario.PROVIDER);
        assertThat(limited.get("eu-west")).isPositive();
    }

    @Test
    void shouldSendLittleToAPoolThatAnswers429AndRetryEachRefusedRequestElsewhere() {
        FleetSpec fleet = FleetSpec.parse(Provider429Scenario.FLEET);
        List<TraceRequest> trace = ScenarioWorkload.generate(Provider429Scenario.tenants(), Provider429Scenario.SHAPE,
                Provider429Scenario.DURATION_MS, SEED);
        RunLog log = Simulator.run(KvAwarePolicy.NAME, trace, SimConfig.defaults().withFleet(fleet).withSeed(SEED),
                Provider429Scenario.conditions(fleet, true), SimulationObserver.NONE).log();

        long toProviderInWindow = log.placements().stream().filter(p -> p.region().equals(Provider429Scenario.PROVIDER)
                && p.atMs() >= Provider429Scenario.LIMITED_FROM_MS && p.atMs() < Provider429Scenario.LIMITED_TO_MS).count();
        long windowSeconds = (Provider429Scenario.LIMITED_TO_MS - Provider429Scenario.LIMITED_FROM_MS) / 1000;
        // without cool-downs the provider, cheapest, would take nearly all of ~32 requests a second
        assertThat(toProviderInWindow).isPositive().isLessThan(windowSeconds * 5);
        assertThat(log.rateLimitedAnswers()).isEqualTo((int) log.placements().stream().filter(p -> p.attempt() > 1).count());
    }

    @Test
    void shouldGiveTheSameFiguresForTheSameSeed() {
        for (String name : Scenarios.names()) {
            assertThat(Scenarios.named(name).run(7).figures()).as(name).isEqualTo(Scenarios.named(name).run(7).figures());
        }
    }

    @Test
    void shouldRefuseAnUnknownScenario() {
        assertThatThrownBy(() -> Scenarios.named("meteor-strike")).hasMessageContaining("region-outage");
    }
}
