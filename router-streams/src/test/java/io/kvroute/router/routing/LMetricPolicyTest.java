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
    void shouldMinimiseNewPrefillTokensTimesBatchSizePlusOne() {
        router.state().prefixIndex().record("w-a", Arrays.copyOf(prompt, 8), NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").running(2).waiting(1).build(), worker("w-b").running(1).build(),
                worker("w-c").running(1).waiting(1).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        // w-a: 128 x (3 + 1) = 512; w-b: 640 x (1 + 1) = 1280; w-c: 640 x (2 + 1) = 1920
        assertThat(placement.workerId()).isEqualTo("w-a");
        assertThat(placement.score()).isEqualTo(512.0);
        assertThat(placement.topCandidates()).extracting(ScoredCandidate::score).containsExactly(512.0, 1280.0, 1920.0);
        assertThat(placement.topCandidates().get(0).components())
                .containsEntry("new_prefill_tokens", 128.0).containsEntry("batch_size", 3.0);
    }

    @Test
    void shouldUseWorkersReportedBlocksAndPendingRequests() {
        router.state().kvEventIndex().apply(KvEvent.stored("w-b", 0, prompt));
        List<WorkerSnapshot> fleet = List.of(worker("w-a").running(1).build(), worker("w-b").running(1).build());

        Placement first = router.route(request("r1", 700, prompt), fleet, NOW).placement().orElseThrow();
        // w-b: 60 x (1 + 1) = 120 < w-a: 700 x (1 + 1) = 1400
        assertThat(first.workerId()).isEqualTo("w-b");
        assertThat(first.score()).isEqualTo(120.0);
        for (int i = 0; i < 22; i++) {
            router.state().ledger().add("w-b", 0, 0, 0, NOW);
        }
        // w-b: 60 x (1 + 23 pending + 1) = 1500 > w-a: 700 x (1 + 1) = 1400
        assertThat(router.route(request("r2", 700, prompt), fleet, NOW + 1).placement().orElseThrow().workerId()).isEqualTo("w-a");
    }

    @Test
    void shouldScoreAnIdleWorkerByItsNewPrefillTokens() {
        router.state().prefixIndex().record("w-b", Arrays.copyOf(prompt, 9), NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").build(), worker("w-b").build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        // idle workers are not a tie: w-b 64 x (0 + 1) = 64 against w-a 640 x (0 + 1) = 640
        assertThat(placement.workerId()).isEqualTo("w-b");
        assertThat(placement.topCandidates()).extracting(ScoredCandidate::score).containsExactly(64.0, 640.0);
    }

    @Test
    void shouldPreferABusyWorkerHoldingThePromptToAnIdleColdOne() {
        router.state().prefixIndex().record("w-b", Arrays.copyOf(prompt, 9), NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").build(), worker("w-b").running(1).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        // w-b: 64 x (1 + 1) = 128; w-a, idle and cold: 640 x (0 + 1) = 640 (a bare product would give w-a 0)
        assertThat(placement.workerId()).isEqualTo("w-b");
        assertThat(placement.score()).isEqualTo(128.0);
        assertThat(placement.reason()).contains("(batch + 1)");
    }

    @Test
    void shouldBreakAnExactTieBySmallerBatchFirst() {
        router.state().prefixIndex().record("w-b", Arrays.copyOf(prompt, 5), NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").running(1).build(), worker("w-b").running(3).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        // w-a: 640 x 2 = 1280 = w-b: 320 x 4; the smaller batch wins, as in SGLang's port
        assertThat(placement.topCandidates()).extracting(ScoredCandidate::score).containsExactly(1280.0, 1280.0);
        assertThat(placement.workerId()).isEqualTo("w-a");
    }
}
