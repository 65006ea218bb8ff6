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
        router.state().prefixIndex().record("w-b", java.util.Arrays.copyOf(prompt, 3), NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").running(4).build(), worker("w-b").running(20).build(),
                worker("w-c").running(3).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-c");
        assertThat(placement.reason()).contains("least loaded");
    }

    @Test
    void shouldSwitchToLeastLoadedWhenImbalancedBeyondBothThresholds() {
        router.state().prefixIndex().record("w-b", prompt, NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").running(10).build(), worker("w-b").running(75).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-a");
        assertThat(placement.reason()).startsWith("imbalanced");
    }

    @Test
    void shouldKeepPrefixAffinityAtExactlyTheGatewaysAbsoluteThreshold() {
        router.state().prefixIndex().record("w-b", prompt, NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").running(10).build(), worker("w-b").running(74).build());

        // 74 - 10 = 64, not above the gateway's 64 (the library's 32 would have called this imbalanced)
        assertThat(router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow().workerId()).isEqualTo("w-b");
    }

    @Test
    void shouldLaunchWithTheGatewaysCommandLineDefaults() {
        SglangCacheAwarePolicy.Config config = ((SglangCacheAwarePolicy) Policies.create(SglangCacheAwarePolicy.NAME,
                new RouterState(Fleet.settings()))).config();

        assertThat(config).isEqualTo(new SglangCacheAwarePolicy.Config(0.3, 64, 1.5));
        assertThat(((SglangCacheAwarePolicy) Policies.create(SglangCacheAwarePolicy.LIBRARY_NAME,
                new RouterState(Fleet.settings()))).config()).isEqualTo(new SglangCacheAwarePolicy.Config(0.5, 32, 1.1));
    }

    @Test
    void shouldFollowAPrefixMatchAboveTheGatewaysCacheThreshold() {
        router.state().prefixIndex().record("w-b", java.util.Arrays.copyOf(prompt, 4), NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").build(), worker("w-b").running(3).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        // match rate 0.4 > 0.3: the holder, though busier
        assertThat(placement.workerId()).isEqualTo("w-b");
        assertThat(placement.reason()).isEqualTo("prefix match rate 0.40 > 0.30");
    }

    @Test
    void shouldSendTheSameMatchToTheLeastLoadedUnderTheLibraryDefaults() {
        Router library = Router.create(SglangCacheAwarePolicy.LIBRARY_NAME, Fleet.settings());
        library.state().prefixIndex().record("w-b", java.util.Arrays.copyOf(prompt, 4), NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").build(), worker("w-b").running(3).build());

        Placement placement = library.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-a");
        assertThat(placement.reason()).isEqualTo("prefix match rate 0.40 <= 0.50: least loaded");
    }

    @Test
    void shouldCallTheLibrarysSmallerSpreadImbalanced() {
        Router library = Router.create(SglangCacheAwarePolicy.LIBRARY_NAME, Fleet.settings());
        library.state().prefixIndex().record("w-b", prompt, NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").running(10).build(), worker("w-b").running(43).build());

        Placement placement = library.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-a");
        assertThat(placement.reason()).startsWith("imbalanced");
    }

    @Test
    void shouldApplyBothImbalanceConditions() {
        SglangCacheAwarePolicy.Config gateway = SglangCacheAwarePolicy.Config.GATEWAY;
        assertThat(gateway.imbalanced(75, 10)).isTrue();
        assertThat(gateway.imbalanced(74, 10)).isFalse();
        assertThat(gateway.imbalanced(400, 267)).isFalse();
        assertThat(gateway.imbalanced(400, 266)).isTrue();
        SglangCacheAwarePolicy.Config library = SglangCacheAwarePolicy.Config.LIBRARY;
        assertThat(library.imbalanced(43, 10)).isTrue();
        assertThat(library.imbalanced(42, 10)).isFalse();
        assertThat(library.imbalanced(400, 367)).isFalse();
        assertThat(library.imbalanced(400, 363)).isTrue();
    }

    @Test
    void shouldCountPendingRequestsAsLoad() {
        List<WorkerSnapshot> fleet = List.of(worker("w-a").build(), worker("w-b").build());
        for (int i = 0; i < 65; i++) {
            router.state().ledger().add("w-a", 0, 100, 10, NOW - 1);
        }
        router.state().prefixIndex().record("w-a", prompt, NOW - 10);

        assertThat(router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow().workerId()).isEqualTo("w-b");
    }
}
