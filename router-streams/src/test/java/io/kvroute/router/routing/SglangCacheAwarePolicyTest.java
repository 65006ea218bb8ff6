package io.kvroute.router.routing;

import static io.kvroute.router.routing.Fleet.NOW;
import static io.kvroute.router.routing.Fleet.blocks;
import static io.kvroute.router.routing.Fleet.request;
import static io.kvroute.router.routing.Fleet.worker;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SglangCacheAwarePolicyTest {
    private final Router router = Router.create(SglangCacheAwarePolicy.NAME, Fleet.settings());
    private final long[] prompt = blocks(10, 5);

    @Test
    void shouldFollowTheLongestPrefixWhenMoreThanHalfMatches() {
        router.state().prefixIndex().record("w-b", java.util.Arrays.copyOf(prompt, 6), NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").build(), worker("w-b").running(20).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-b");
        assertThat(placement.matchedBlocks()).isEqualTo(6);
        assertThat(placement.topCandidates().get(0).components()).containsEntry("match_rate", 0.6).containsEntry("load", 20.0);
    }

    @Test
    void shouldSendAMissToTheLeastLoadedWorker() {
        router.state().prefixIndex().record("w-b", java.util.Arrays.copyOf(prompt, 5), NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").running(4).build(), worker("w-b").running(20).build(),
                worker("w-c").running(3).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-c");
        assertThat(placement.reason()).contains("least loaded");
    }

    @Test
    void shouldSwitchToLeastLoadedWhenImbalancedBeyondBothThresholds() {
        router.state().prefixIndex().record("w-b", prompt, NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").running(10).build(), worker("w-b").running(43).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-a");
        assertThat(placement.reason()).startsWith("imbalanced");
    }

    @Test
    void shouldKeepPrefixAffinityAtExactlyTheAbsoluteThreshold() {
        router.state().prefixIndex().record("w-b", prompt, NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").running(10).build(), worker("w-b").running(42).build());

        assertThat(router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow().workerId()).isEqualTo("w-b");
    }

    @Test
    void shouldApplyBothImbalanceConditions() {
        assertThat(SglangCacheAwarePolicy.imbalanced(43, 10)).isTrue();
        assertThat(SglangCacheAwarePolicy.imbalanced(42, 10)).isFalse();
        assertThat(SglangCacheAwarePolicy.imbalanced(400, 367)).isFalse();
        assertThat(SglangCacheAwarePolicy.imbalanced(400, 363)).isTrue();
    }

    @Test
    void shouldCountPendingRequestsAsLoad() {
        List<WorkerSnapshot> fleet = List.of(worker("w-a").build(), worker("w-b").build());
        for (int i = 0; i < 33; i++) {
            router.state().ledger().add("w-a", 0, 100, 10, NOW - 1);
        }
        router.state().prefixIndex().record("w-a", prompt, NOW - 10);

        assertThat(router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow().workerId()).isEqualTo("w-b");
    }
}
