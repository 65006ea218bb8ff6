package io.kvroute.router.routing;

import static io.kvroute.router.routing.Fleet.NOW;
import static io.kvroute.router.routing.Fleet.blocks;
import static io.kvroute.router.routing.Fleet.request;
import static io.kvroute.router.routing.Fleet.worker;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A router instance that follows another's placements counts them as its own: two instances
 * sharing a fleet do not both load the same idle GPU, and a prefix one of them sent somewhere is
 * found there by the other.
 */
class FollowPeerTest {
    private final WorkerSnapshot a = worker("w-a").build();
    private final WorkerSnapshot b = worker("w-b").build();
    private final List<WorkerSnapshot> fleet = List.of(a, b);

    @ParameterizedTest
    @ValueSource(strings = {KvAwarePolicy.NAME, LeastQueuePolicy.NAME, DynamoKvPolicy.NAME})
    void shouldNotSendWorkToTheIdleWorkerAPeerHasJustLoaded(String policy) {
        RouteRequest peers = request("peer-1", 6_000, blocks(11, 1));
        RouteRequest mine = request("mine-1", 6_000, blocks(11, 2));

        Router isolated = Router.create(policy, Fleet.settings());
        Router following = Router.create(policy, Fleet.settings());
        following.followPeer(peers, a, 0, NOW - 5);

        assertThat(workerOf(isolated.route(mine, fleet, NOW))).as("ties go to the smallest id").isEqualTo("w-a");
        assertThat(workerOf(following.route(mine, fleet, NOW))).isEqualTo("w-b");
    }

    @ParameterizedTest
    @ValueSource(strings = {KvAwarePolicy.NAME, GieWeightedPolicy.NAME, SglangCacheAwarePolicy.NAME})
    void shouldFindAPrefixWhereAPeerSentIt(String policy) {
        long[] prefix = blocks(11, 3);
        RouteRequest peers = request("peer-2", 6_000, prefix);
        RouteRequest mine = request("mine-2", 6_000, prefix);

        Router following = Router.create(policy, Fleet.settings());
        // long enough ago that its prefill has run and the worker's last telemetry has seen it
        following.followPeer(peers, b, 0, NOW - 400);

        RoutingResult result = following.route(mine, fleet, NOW);
        assertThat(workerOf(result)).isEqualTo("w-b");
        assertThat(result.placement().orElseThrow().matchedBlocks()).isEqualTo(prefix.length);
    }

    @Test
    void shouldCountAPeersPlacementInTheKvroutePolicysArrivalRate() {
        Router following = Router.create(KvAwarePolicy.NAME, Fleet.settings());
        for (int i = 0; i < 5; i++) {
            following.followPeer(request("peer-" + i, 1_000, blocks(1, 10 + i)), a, 0, NOW - 50 + i);
        }

        RoutingResult result = following.route(request("mine-3", 1_000, blocks(1, 99)), List.of(a), NOW);

        assertThat(result.placement().orElseThrow().topCandidates().get(0).components().get("arrivals_per_s")).isPositive();
    }

    @Test
    void shouldSpreadItsChoiceOverCandidatesScoringWithinAFewMsOnlyWhilePeersPlaceToo() {
        WorkerSnapshot queued = worker("w-c").observedAtMs(NOW).waiting(1).queuedPrefillTokens(4_000).build();
        List<WorkerSnapshot> five = List.of(a, b, queued, worker("w-d").observedAtMs(NOW).waiting(1).queuedPrefillTokens(4_000).build(),
                worker("w-e").observedAtMs(NOW).waiting(1).queuedPrefillTokens(5_000).build());
        Map<String, Integer> alone = new TreeMap<>();
        Map<String, Integer> withPeers = new TreeMap<>();
        Map<String, Integer> peersGone = new TreeMap<>();
        for (int i = 0; i < 40; i++) {
            RouteRequest mine = request("mine-" + i, 1_000, blocks(2, 100 + i));
            String lone = workerOf(instance().route(mine, five, NOW));
            alone.merge(lone, 1, Integer::sum);
            Router following = instance();
            // a small placement on the queued worker, 4 s ago: its work has long drained
            following.followPeer(request("peer-" + i, 16, blocks(1, 500 + i)), queued, 0, NOW - 4_000);
            RoutingResult result = following.route(mine, five, NOW);
            withPeers.merge(workerOf(result), 1, Integer::sum);
            assertThat(result.placement().orElseThrow().topCandidates()).as("the record shows the chosen first, and two more")
                    .hasSize(3).first().extracting(ScoredCandidate::workerId).isEqualTo(workerOf(result));
            if (!workerOf(result).equals(lone)) {
                assertThat(result.placement().orElseThrow().reason()).startsWith("within 30 ms of the lowest score");
            }
            Router stale = instance();
            stale.followPeer(request("peer-" + i, 16, blocks(1, 500 + i)), queued, 0, NOW - KvAwarePolicy.PEER_ACTIVE_MS);
            peersGone.merge(workerOf(stale.route(mine, five, NOW)), 1, Integer::sum);
        }

        assertThat(alone).as("by the instance's tie-break alone").hasSize(1);
        assertThat(peersGone).isEqualTo(alone);
        assertThat(withPeers).as("the queued workers are more than 30 ms behind").containsOnlyKeys("w-a", "w-b");
        assertThat(withPeers.values()).allSatisfy(n -> assertThat(n).isBetween(10, 30));
    }

    private static Router instance() {
        return Router.create(KvAwarePolicy.NAME, Fleet.settings(), RegionCatalog.empty(), TieBreak.forInstance("router-2"));
    }

    private static String workerOf(RoutingResult result) {
        return result.placement().orElseThrow().workerId();
    }
}
