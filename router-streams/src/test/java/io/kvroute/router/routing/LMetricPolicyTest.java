package io.kvroute.router.routing;

import static io.kvroute.router.routing.Fleet.NOW;
import static io.kvroute.router.routing.Fleet.blocks;
import static io.kvroute.router.routing.Fleet.request;
import static io.kvroute.router.routing.Fleet.worker;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class LMetricPolicyTest {
    private final Router router = Router.create(LMetricPolicy.NAME, Fleet.settings());
    private final long[] prompt = blocks(10, 33);

    @Test
    void shouldMinimiseNewPrefillTokensTimesBatchSize() {
        router.state().prefixIndex().record("w-a", Arrays.copyOf(prompt, 8), NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").running(2).waiting(1).build(), worker("w-b").running(1).build(),
                worker("w-c").running(1).waiting(1).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        // w-a: 128 x 3 = 384; w-b: 640 x 1 = 640; w-c: 640 x 2 = 1280
        assertThat(placement.workerId()).isEqualTo("w-a");
        assertThat(placement.score()).isEqualTo(384.0);
        assertThat(placement.topCandidates()).extracting(ScoredCandidate::score).containsExactly(384.0, 640.0, 1280.0);
        assertThat(placement.topCandidates().get(0).components())
                .containsEntry("new_prefill_tokens", 128.0).containsEntry("batch_size", 3.0);
    }

    @Test
    void shouldUseWorkersReportedBlocksAndPendingRequests() {
        router.state().kvEventIndex().apply(KvEvent.stored("w-b", 0, prompt));
        List<WorkerSnapshot> fleet = List.of(worker("w-a").running(1).build(), worker("w-b").running(1).build());

        Placement first = router.route(request("r1", 700, prompt), fleet, NOW).placement().orElseThrow();
        assertThat(first.workerId()).isEqualTo("w-b");
        assertThat(first.score()).isEqualTo(60.0);
        for (int i = 0; i < 11; i++) {
            router.state().ledger().add("w-b", 0, 0, 0, NOW);
        }
        // w-b: 60 x (1 + 12 pending) = 780 > w-a: 700 x 1
        assertThat(router.route(request("r2", 700, prompt), fleet, NOW + 1).placement().orElseThrow().workerId()).isEqualTo("w-a");
    }

    @Test
    void shouldBreakTheIdleTieByFewerNewPrefillTokens() {
        router.state().prefixIndex().record("w-b", prompt, NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").build(), worker("w-b").build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-b");
        assertThat(placement.score()).isZero();
    }
}
