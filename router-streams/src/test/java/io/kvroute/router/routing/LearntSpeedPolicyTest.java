package io.kvroute.router.routing;

import static io.kvroute.router.routing.Fleet.NOW;
import static io.kvroute.router.routing.Fleet.request;
import static io.kvroute.router.routing.Fleet.worker;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** kvroute prices each worker with what the router learnt of its pool, and a worker's owed prefill as its queue. */
class LearntSpeedPolicyTest {
    /** A pool about a third as fast as the H100 one at prefill: an A100-class GPU. */
    private static final TtftModel SLOW = new TtftModel(16.4, 0.048, 4.1e-6, 0.014, 1.25e-4, 2_048, 0.01);

    private static Router fromNothing() {
        return Router.create(KvAwarePolicy.NAME, Fleet.settings().withEngineModel(null));
    }

    private static void learn(Router router, String pool, TtftModel engine) {
        for (int i = 0; i < 200; i++) {
            int prompt = 500 + 150 * i;
            long ttft = Math.round(engine.prefillMs(prompt, 0) + engine.steps(prompt) * engine.decodeMsPerStep(4, 8_000));
            long decode = Math.round(49 * engine.stepMs(engine.decodeMsPerStep(4, 8_000)));
            router.state().engineSpeeds().observe(new FinishedRun(pool, prompt, 0, 50, ttft, decode, 0, 0, 4, 8_000, 0.0));
        }
    }

    @Test
    void shouldSendAColdPromptToTheFasterPoolOnceItHasLearntBoth() {
        Router router = fromNothing();
        WorkerSnapshot slow = worker("a-slow").pool("slow").build();
        WorkerSnapshot fast = worker("b-fast").pool("fast").build();

        RoutingResult before = router.route(request("r0", 8_000), List.of(slow, fast), NOW);
        learn(router, "slow", SLOW);
        learn(router, "fast", TtftModel.LLAMA_8B_H100);
        RoutingResult after = router.route(request("r1", 8_000), List.of(slow, fast), NOW + 1);

        assertThat(before.placement().orElseThrow().workerId()).as("alike before any run: the tie-break").isEqualTo("a-slow");
        Placement placement = after.placement().orElseThrow();
        assertThat(placement.workerId()).isEqualTo("b-fast");
        ScoredCandidate chosen = placement.topCandidates().get(0);
        ScoredCandidate other = placement.topCandidates().get(1);
        assertThat(chosen.components().get("engine_ms_per_1k_tokens")).isLessThan(other.components().get("engine_ms_per_1k_tokens") / 2);
        assertThat(chosen.components().get("prefill_ms")).isCloseTo(TtftModel.LLAMA_8B_H100.prefillMs(8_000, 0),
                org.assertj.core.data.Offset.offset(0.15 * TtftModel.LLAMA_8B_H100.prefillMs(8_000, 0)));
    }

    @Test
    void shouldPriceThePrefillAWorkerOwesAsItsQueueWhenItCannotSeeInsideItsServer() {
        Router router = fromNothing();
        learn(router, "p", TtftModel.LLAMA_8B_H100);
        WorkerSnapshot owing = worker("a-owing").pool("p").running(4).waiting(3)
                .observed(new ObservedWork(30_000, 4, 0, 0.0, 0.0)).build();
        WorkerSnapshot idle = worker("b-idle").pool("p").build();

        Placement placement = router.route(request("r1", 1_000), List.of(owing, idle), NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("b-idle");
        ScoredCandidate owingScore = placement.topCandidates().get(1);
        assertThat(owingScore.workerId()).isEqualTo("a-owing");
        double exact = TtftModel.LLAMA_8B_H100.queuedPrefillMs(30_000, 7_500);
        assertThat(owingScore.components().get("queue_ms")).as("the engine's own model: %.0f ms", exact)
                .isBetween(0.5 * exact, 1.5 * exact);
        WorkerSnapshot halfCached = worker("c").observed(new ObservedWork(30_000, 4, 0, 0.0, 0.0)).prefixHitRate(0.5).build();
        assertThat(KvAwarePolicy.queuedPrefillTokens(halfCached)).as("the share its cache serves left out").isEqualTo(15_000);
        assertThat(KvAwarePolicy.queuedPrefillTokens(worker("d").queuedPrefillTokens(9_000)
                .observed(new ObservedWork(30_000, 4, 0, 0.0, 0.0)).build())).as("what a white-box worker reports").isEqualTo(9_000);
    }
}
