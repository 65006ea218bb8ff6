package io.kvroute.router.routing;

import static io.kvroute.router.routing.Fleet.NOW;
import static io.kvroute.router.routing.Fleet.blocks;
import static io.kvroute.router.routing.Fleet.request;
import static io.kvroute.router.routing.Fleet.worker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DynamoKvPolicyTest {
    private final Router router = Router.create(DynamoKvPolicy.NAME, Fleet.settings());
    private final long[] prompt = blocks(10, 21);

    @Test
    void shouldCostPrefillAfterCreditsPlusActiveAndNewDecodeBlocks() {
        router.state().kvEventIndex().apply(KvEvent.stored("w-a", 0, Arrays.copyOf(prompt, 8)));
        List<WorkerSnapshot> fleet = List.of(
                worker("w-a").kvBlocks(28_000, 20).queuedPrefillTokens(64).build(),
                worker("w-b").kvBlocks(28_000, 0).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        // w-a: prefill 64/64 active + 640/64 - 8 cached = 3; decode 20 blocks of 16 tokens = 5 active + 2 new = 7 -> 10
        // w-b: prefill 10; decode 10 new -> 20
        assertThat(placement.workerId()).isEqualTo("w-a");
        assertThat(placement.score()).isCloseTo(10.0, within(1e-9));
        assertThat(placement.matchedBlocks()).isEqualTo(8);
        Map<String, Double> c = placement.topCandidates().get(0).components();
        assertThat(c.get("prefill_blocks")).isCloseTo(3.0, within(1e-9));
        assertThat(c.get("decode_blocks")).isCloseTo(7.0, within(1e-9));
        assertThat(c.get("new_decode_blocks")).isEqualTo(2.0);
        assertThat(c.get("overlap_blocks")).isEqualTo(8.0);
        assertThat(placement.topCandidates().get(1).score()).isCloseTo(20.0, within(1e-9));
    }

    @Test
    void shouldCountThisRequestsNewBlocksAsDecodeLoad() {
        router.state().kvEventIndex().apply(KvEvent.stored("w-a", 0, Arrays.copyOf(prompt, 4)));
        router.state().kvEventIndex().apply(KvEvent.stored("w-b", 0, 99L));
        List<WorkerSnapshot> fleet = List.of(worker("w-a").kvBlocks(28_000, 20).build(), worker("w-b").kvBlocks(28_000, 0).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        // w-a: prefill 6 + decode 5 active + 6 new = 17; w-b: prefill 10 + decode 10 new = 20
        // (without the new blocks w-b's 10 would beat w-a's 11)
        assertThat(placement.workerId()).isEqualTo("w-a");
        assertThat(placement.topCandidates()).extracting(ScoredCandidate::score).containsExactly(17.0, 20.0);
    }

    @Test
    void shouldCreditHostMemoryBlocksAtThreeQuartersAndCountThemAsNewDecodeBlocks() {
        router.state().kvEventIndex().apply(KvEvent.stored("w-a", 0, Arrays.copyOf(prompt, 8)));
        router.state().kvEventIndex().apply(KvEvent.offloaded("w-a", 1, Arrays.copyOf(prompt, 8)));
        router.state().kvEventIndex().apply(KvEvent.stored("w-b", 0, Arrays.copyOf(prompt, 6)));
        List<WorkerSnapshot> fleet = List.of(worker("w-a").kvBlocks(28_000, 0).build(), worker("w-b").kvBlocks(28_000, 0).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        // w-b: prefill 10 - 6 = 4, decode 4 new -> 8; w-a: prefill 10 - 0.75 x 8 = 4, decode 10 new -> 14
        assertThat(placement.workerId()).isEqualTo("w-b");
        assertThat(placement.topCandidates()).extracting(ScoredCandidate::score).containsExactly(8.0, 14.0);
        assertThat(placement.topCandidates().get(1).components()).containsEntry("host_overlap_blocks", 8.0)
                .containsEntry("prefill_blocks", 4.0);
    }

    @Test
    void shouldIgnoreTheRoutersOwnRecordForAWorkerReportingKvEvents() {
        router.state().kvEventIndex().apply(KvEvent.stored("w-b", 0, 99L));
        router.state().prefixIndex().record("w-b", prompt, NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").kvBlocks(28_000, 0).build(), worker("w-b").kvBlocks(28_000, 4).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-a");
        assertThat(placement.score()).isCloseTo(20.0, within(1e-9));
    }

    @Test
    void shouldGiveASilentWorkerNoOverlapOnceAnyCandidateReportsKvEvents() {
        router.state().kvEventIndex().apply(KvEvent.stored("w-a", 0, 99L));
        router.state().prefixIndex().record("w-b", prompt, NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").kvBlocks(28_000, 0).build(), worker("w-b").kvBlocks(28_000, 4).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        // one mode for the fleet, as Dynamo's use_kv_events: w-b's routing record earns nothing (it would in approximate mode)
        assertThat(placement.workerId()).isEqualTo("w-a");
        assertThat(placement.topCandidates()).extracting(ScoredCandidate::score).containsExactly(20.0, 21.0);
        assertThat(placement.topCandidates().get(1).components()).containsEntry("approximate", 0.0);
    }

    @Test
    void shouldFallBackToItsOwnRoutingRecordWithoutKvEvents() {
        router.state().prefixIndex().record("w-b", prompt, NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").kvBlocks(28_000, 0).build(), worker("w-b").kvBlocks(28_000, 0).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-b");
        assertThat(placement.score()).isZero();
        assertThat(placement.matchedBlocks()).isEqualTo(10);
        assertThat(placement.reason()).contains("routed there within the TTL");
    }

    @Test
    void shouldForgetItsOwnRecordDynamosTtlAfterTheLastRouting() {
        router.state().prefixIndex().record("w-b", prompt, NOW - 200_000);
        router.state().prefixIndex().record("w-b", Arrays.copyOf(prompt, 4), NOW - DynamoKvPolicy.APPROXIMATE_TTL_MS);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").kvBlocks(28_000, 0).build(), worker("w-b").kvBlocks(28_000, 0).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        // the first 4 blocks were routed 120 s ago, the rest 200 s ago: w-b 6 + 6 = 12 against w-a 20
        assertThat(DynamoKvPolicy.APPROXIMATE_TTL_MS).isEqualTo(120_000);
        assertThat(placement.workerId()).isEqualTo("w-b");
        assertThat(placement.matchedBlocks()).isEqualTo(4);
        assertThat(placement.score()).isCloseTo(12.0, within(1e-9));
        assertThat(router.state().routedMatchWithin(fleet.get(1), request("r2", 640, prompt), NOW + 1,
                DynamoKvPolicy.APPROXIMATE_TTL_MS)).as("routing r1 there refreshed all its blocks").isEqualTo(10);
    }

    @Test
    void shouldCountPendingPrefillAndKvBlocks() {
        router.state().kvEventIndex().apply(KvEvent.stored("w-a", 0, Arrays.copyOf(prompt, 8)));
        router.state().kvEventIndex().apply(KvEvent.stored("w-b", 0, 99L));
        List<WorkerSnapshot> fleet = List.of(worker("w-a").kvBlocks(28_000, 44).build(), worker("w-b").kvBlocks(28_000, 0).build());

        // w-a: prefill 2 + decode 11 active + 2 new = 15 < w-b's 20
        String first = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow().workerId();
        // w-a now: prefill 2 pending + 2 = 4; decode (44 + 16 pending KV blocks) * 16 / 64 = 15 active + 2 new -> 21 > w-b's 20
        Placement second = router.route(request("r2", 640, prompt), fleet, NOW + 1).placement().orElseThrow();

        assertThat(first).isEqualTo("w-a");
        assertThat(second.workerId()).isEqualTo("w-b");
        ScoredCandidate holder = second.topCandidates().get(1);
        assertThat(holder.workerId()).isEqualTo("w-a");
        assertThat(holder.score()).isCloseTo(21.0, within(1e-9));
    }
}
