package io.kvroute.router.routing;

import static io.kvroute.router.routing.Fleet.NOW;
import static io.kvroute.router.routing.Fleet.request;
import static io.kvroute.router.routing.Fleet.worker;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CooldownsTest {
    private final RouterState state = new RouterState(Fleet.settings());
    private final CandidateFilter filter = new CandidateFilter(state);

    @Test
    void shouldGiveNoWorkToAWorkerReportingARateLimitUntilItEnds() {
        WorkerSnapshot limited = worker("w-a").status(WorkerHealth.DEGRADED).rateLimitedUntilMs(NOW + 500).build();
        WorkerSnapshot other = worker("w-b").status(WorkerHealth.DEGRADED).build();

        CandidateSet during = filter.filter(request("r1", 100), List.of(limited, other), NOW);
        CandidateSet after = filter.filter(request("r2", 100), List.of(limited, other), NOW + 500);

        assertThat(during.candidates()).extracting(WorkerSnapshot::workerId).containsExactly("w-b");
        assertThat(during.excludedCount(Exclusion.RATE_LIMITED)).isEqualTo(1);
        assertThat(after.candidates()).extracting(WorkerSnapshot::workerId).containsExactly("w-a", "w-b");
    }

    @Test
    void shouldCoolOnlyTheAnsweringWorkerOfAPoolWithoutASharedLimit() {
        WorkerSnapshot a = worker("w-a").build();
        WorkerSnapshot b = worker("w-b").build();

        long until = state.cooldowns().onRateLimited("w-a", "us-east", 1_000, false, NOW);

        assertThat(until).isEqualTo(NOW + 1_000);
        assertThat(filter.filter(request("r1", 100), List.of(a, b), NOW + 999).candidates())
                .extracting(WorkerSnapshot::workerId).containsExactly("w-b");
        assertThat(filter.filter(request("r2", 100), List.of(a, b), NOW + 1_000).candidates()).hasSize(2);
    }

    @Test
    void shouldCoolTheWholeRegionWhenItIsOneRateLimitedPool() {
        WorkerSnapshot a = worker("w-a").build();
        WorkerSnapshot b = worker("w-b").build();
        WorkerSnapshot west = WorkerSnapshot.builder("w-w", "eu-west").observedAtMs(NOW).build();

        state.cooldowns().onRateLimited("w-a", "us-east", -1, true, NOW);

        CandidateSet set = filter.filter(request("r1", 100), List.of(a, b, west), NOW + Cooldowns.DEFAULT_COOLDOWN_MS - 1);
        assertThat(set.candidates()).extracting(WorkerSnapshot::workerId).containsExactly("w-w");
        assertThat(set.excludedCount(Exclusion.RATE_LIMITED)).isEqualTo(2);
        assertThat(state.cooldowns().regionCoolingUntil("us-east")).isEqualTo(NOW + Cooldowns.DEFAULT_COOLDOWN_MS);
    }

    @Test
    void shouldParkRatherThanUseACoolingWorkerWhenNothingElseFits() {
        Router router = new Router(Policies.create(KvAwarePolicy.NAME, state), state);
        WorkerSnapshot only = worker("w-a").build();
        state.cooldowns().onRateLimited("w-a", "us-east", 1_000, false, NOW);

        assertThat(router.route(request("r1", 100), List.of(only), NOW).placed()).isFalse();
        assertThat(router.route(request("r1", 100), List.of(only), NOW + 1_000).placed()).isTrue();
    }

    @Test
    void shouldForgetEndedCooldowns() {
        state.cooldowns().onRateLimited("w-a", "us-east", 100, true, NOW);
        state.cooldowns().expire(NOW + 100);
        assertThat(state.cooldowns().regionCoolingUntil("us-east")).isZero();
    }
}
