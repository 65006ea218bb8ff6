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
    void shouldCostUncachedPlusActivePrefillPlusDecodeBlocks() {
        router.state().kvEventIndex().apply(KvEvent.stored("w-a", 0, Arrays.copyOf(prompt, 8)));
        List<WorkerSnapshot> fleet = List.of(
                worker("w-a").kvBlocks(28_000, 20).queuedPrefillTokens(64).build(),
                worker("w-b").kvBlocks(28_000, 0).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        // w-a: (640 - 8*64)/64 = 2 new + 64/64 = 1 active prefill + 20 blocks of 16 tokens = 5 decode -> 8
        // w-b: 10 new prefill blocks -> 10
        assertThat(placement.workerId()).isEqualTo("w-a");
        assertThat(placement.score()).isCloseTo(8.0, within(1e-9));
        assertThat(placement.matchedBlocks()).isEqualTo(8);
        Map<String, Double> c = placement.topCandidates().get(0).components();
        assertThat(c.get("prefill_blocks")).isCloseTo(3.0, within(1e-9));
        assertThat(c.get("decode_blocks")).isCloseTo(5.0, within(1e-9));
        assertThat(c.get("overlap_blocks")).isEqualTo(8.0);
        assertThat(placement.topCandidates().get(1).score()).isCloseTo(10.0, within(1e-9));
    }

    @Test
    void shouldIgnoreTheRoutersOwnGuessOfCachedBlocks() {
        router.state().prefixIndex().record("w-b", prompt, NOW - 10);
        List<WorkerSnapshot> fleet = List.of(worker("w-a").kvBlocks(28_000, 0).build(), worker("w-b").kvBlocks(28_000, 4).build());

        Placement placement = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-a");
        assertThat(placement.score()).isCloseTo(10.0, within(1e-9));
    }

    @Test
    void shouldCountPendingPrefillAndKvBlocks() {
        router.state().kvEventIndex().apply(KvEvent.stored("w-a", 0, Arrays.copyOf(prompt, 8)));
        List<WorkerSnapshot> fleet = List.of(worker("w-a").kvBlocks(28_000, 20).build(), worker("w-b").kvBlocks(28_000, 0).build());

        String first = router.route(request("r1", 640, prompt), fleet, NOW).placement().orElseThrow().workerId();
        // w-a now: 2 new + 2 pending prefill + (20 + 16 pending KV blocks) * 16 / 64 = 9 decode = 13 > w-b's 10
        Placement second = router.route(request("r2", 640, prompt), fleet, NOW + 1).placement().orElseThrow();

        assertThat(first).isEqualTo("w-a");
        assertThat(second.workerId()).isEqualTo("w-b");
        ScoredCandidate holder = second.topCandidates().get(1);
        assertThat(holder.workerId()).isEqualTo("w-a");
        assertThat(holder.score()).isCloseTo(13.0, within(1e-9));
    }
}
