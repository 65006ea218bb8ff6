package io.kvroute.router.routing;

import static io.kvroute.router.routing.Fleet.NOW;
import static io.kvroute.router.routing.Fleet.request;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CandidateSamplingTest {
    private static final RoutingSettings SAMPLED = Fleet.settings().withCandidateSampling(16, 4);

    @Test
    void shouldEvaluateTheSameWorkersForTheSameRequestId() {
        FleetView fleet = FleetView.of(workers(300, "sa"));
        RouteRequest request = request("req-1", 640, Fleet.blocks(10, 7));

        List<String> first = candidates(Router.create(KvAwarePolicy.NAME, SAMPLED).route(request, fleet, NOW));
        List<String> again = candidates(Router.create(KvAwarePolicy.NAME, SAMPLED).route(request, fleet, NOW));
        List<String> other = candidates(Router.create(KvAwarePolicy.NAME, SAMPLED).route(request("req-2", 640, Fleet.blocks(10, 7)), fleet, NOW));

        assertThat(first).hasSize(16).doesNotHaveDuplicates().isEqualTo(again);
        assertThat(other).hasSize(16).isNotEqualTo(first);
    }

    @Test
    void shouldAlwaysEvaluateThePrefixHoldersOfEitherIndex() {
        FleetView fleet = FleetView.of(workers(300, "sb"));
        long[] prompt = Fleet.blocks(10, 11);
        for (int seed = 0; seed < 20; seed++) {
            Router router = Router.create(DynamoKvPolicy.NAME, SAMPLED);
            router.state().kvEventIndex().apply(KvEvent.stored("sb-007", 0, java.util.Arrays.copyOf(prompt, 3)));
            router.state().kvEventIndex().apply(KvEvent.stored("sb-250", 0, prompt));
            router.state().prefixIndex().record("sb-123", java.util.Arrays.copyOf(prompt, 5), NOW - 10);

            RoutingResult result = router.route(request("req-h" + seed, 640, prompt), fleet, NOW);

            assertThat(candidates(result)).contains("sb-007", "sb-123", "sb-250").hasSize(16 + 3);
            assertThat(result.placed()).isTrue();
        }
    }

    @Test
    void shouldKeepTheLongestMatchingHoldersBeyondTheCap() {
        FleetView fleet = FleetView.of(workers(300, "sc"));
        long[] prompt = Fleet.blocks(10, 13);
        Router router = Router.create(KvAwarePolicy.NAME, SAMPLED);
        for (int i = 1; i <= 10; i++) {
            router.state().kvEventIndex().apply(KvEvent.stored(String.format("sc-%03d", i * 20), 0,
                    java.util.Arrays.copyOf(prompt, i)));
        }

        List<String> evaluated = candidates(router.route(request("req-c", 640, prompt), fleet, NOW));

        assertThat(evaluated).contains("sc-140", "sc-160", "sc-180", "sc-200");
    }

    @Test
    void shouldDrawMoreWorkersWhenNoSampledOneCanTakeTheRequest() {
        List<WorkerSnapshot> workers = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            WorkerSnapshot.Builder worker = Fleet.worker(String.format("sd-%03d", i));
            workers.add((i == 271 ? worker : worker.kvBlocks(1_000, 999)).build());
        }

        RoutingResult result = Router.create(KvAwarePolicy.NAME, SAMPLED).route(request("req-d", 640), FleetView.of(workers), NOW);

        assertThat(result.placement().orElseThrow().workerId()).isEqualTo("sd-271");
        assertThat(result.candidates().excludedCount(Exclusion.SATURATED)).isPositive();
    }

    @Test
    void shouldCountWorkersOfOtherModelsAndRegionsWithoutEvaluatingThem() {
        List<WorkerSnapshot> workers = new ArrayList<>(workers(100, "se"));
        for (int i = 0; i < 30; i++) {
            workers.add(Fleet.worker("se-q" + i).models(Set.of("qwen-32b")).build());
            workers.add(WorkerSnapshot.builder("se-ap" + i, "ap-south").observedAtMs(NOW).build());
        }

        RoutingResult result = Router.create(KvAwarePolicy.NAME, SAMPLED).route(request("req-e", 640), FleetView.of(workers), NOW);

        assertThat(result.candidates().excludedCount(Exclusion.MODEL_NOT_SERVED)).isEqualTo(30);
        assertThat(result.candidates().excludedCount(Exclusion.REGION_NOT_ALLOWED)).isEqualTo(30);
        assertThat(result.candidates().candidates()).hasSize(16).allMatch(w -> w.workerId().startsWith("se-0"));
    }

    @Test
    void shouldPlaceExactlyAsTheUnsampledRouterBelowTheBound() {
        for (String policy : List.of(KvAwarePolicy.NAME, DynamoKvPolicy.NAME, SglangCacheAwarePolicy.NAME,
                GieWeightedPolicy.NAME, LMetricPolicy.NAME, PowerOfTwoPolicy.NAME)) {
            Random random = new Random(policy.hashCode());
            RoutingSettings settings = Fleet.settings();
            Router router = Router.create(policy, settings);
            RouterState referenceState = new RouterState(settings);
            RoutingPolicy reference = Policies.create(policy, referenceState);
            CandidateFilter referenceFilter = new CandidateFilter(referenceState, reference.pricesKvUsage());
            List<long[]> prompts = new ArrayList<>();
            for (int p = 0; p < 12; p++) {
                prompts.add(Fleet.blocks(4 + random.nextInt(20), p % 4));
            }
            long[] sequence = new long[64];
            for (int step = 0; step < 300; step++) {
                long now = NOW + step * 7L;
                List<WorkerSnapshot> workers = new ArrayList<>();
                int size = 1 + random.nextInt(settings.candidateSampleSize());
                for (int w = 0; w < size; w++) {
                    workers.add(WorkerSnapshot.builder("eq-" + w, w % 5 == 0 ? "eu-west" : "us-east")
                            .running(random.nextInt(40)).waiting(random.nextInt(10))
                            .queuedPrefillTokens(random.nextInt(20_000)).runningDecode(random.nextInt(30))
                            .kvBlocks(28_000, random.nextInt(28_000)).observedAtMs(now - random.nextInt(300)).build());
                }
                if (random.nextInt(3) == 0) {
                    int w = random.nextInt(64);
                    long[] stored = prompts.get(random.nextInt(prompts.size()));
                    KvEvent event = KvEvent.stored("eq-" + w, sequence[w]++, java.util.Arrays.copyOf(stored, 1 + random.nextInt(stored.length)));
                    router.state().kvEventIndex().apply(event);
                    referenceState.kvEventIndex().apply(event);
                }
                long[] prompt = prompts.get(random.nextInt(prompts.size()));
                RouteRequest request = request("eq-" + policy + "-" + step, prompt.length * 64 - random.nextInt(64), prompt);

                RoutingResult routed = step % 2 == 0 ? router.route(request, workers, now) : router.route(request, FleetView.of(workers), now);
                Optional<Placement> expected = referenceRoute(referenceFilter, reference, referenceState, request, workers, now);

                assertThat(routed.placement()).as("%s step %d", policy, step).isEqualTo(expected);
            }
        }
    }

    /** The router before sampling and prepared lookups: filter everything, place, account. */
    private static Optional<Placement> referenceRoute(CandidateFilter filter, RoutingPolicy policy, RouterState state,
                                                      RouteRequest request, List<WorkerSnapshot> workers, long now) {
        CandidateSet candidates = filter.filter(request, workers, now);
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        Optional<Placement> placement = policy.place(request, candidates.candidates(), now);
        placement.ifPresent(p -> {
            WorkerSnapshot worker = candidates.candidates().stream().filter(w -> w.workerId().equals(p.workerId())).findFirst().orElseThrow();
            String excluded = candidates.exclusionSummary();
            Placement placed = excluded.isEmpty() ? p : p.withReason(p.reason() + "; " + excluded);
            state.recordPlacement(request, placed, worker, now);
            policy.onPlaced(request, placed, now);
        });
        String excluded = candidates.exclusionSummary();
        return excluded.isEmpty() ? placement : placement.map(p -> p.withReason(p.reason() + "; " + excluded));
    }

    private static List<WorkerSnapshot> workers(int count, String prefix) {
        List<WorkerSnapshot> workers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            workers.add(Fleet.worker(String.format("%s-%03d", prefix, i)).running(i % 17).queuedPrefillTokens(i * 37L % 5_000).build());
        }
        return workers;
    }

    private static List<String> candidates(RoutingResult result) {
        return result.candidates().candidates().stream().map(WorkerSnapshot::workerId).toList();
    }
}
