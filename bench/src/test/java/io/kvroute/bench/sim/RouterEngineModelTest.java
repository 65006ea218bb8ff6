package io.kvroute.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.kvroute.router.routing.TtftModel;
import io.kvroute.worker.engine.sim.CostModel;
import org.junit.jupiter.api.Test;

/**
 * The router's model of the engine ({@link TtftModel}, in router-streams, which does not depend on
 * the worker) must hold the coefficients the simulated engine runs, or the bench would measure the
 * estimate against a different engine than the one it models.
 */
class RouterEngineModelTest {
    @Test
    void shouldEstimateWithTheSimulatedEnginesOwnCoefficients() {
        for (EngineProfile profile : EngineProfile.ALL) {
            TtftModel router = profile.routerModel();
            CostModel engine = profile.costModel();

            assertThat(router.t0Ms()).as(profile.name()).isEqualTo(engine.stepOverheadMs());
            assertThat(router.aMsPerToken()).as(profile.name()).isEqualTo(engine.perPrefillTokenMs());
            assertThat(router.kMsPerTokenPair()).as(profile.name()).isEqualTo(engine.attentionMsPerTokenSquared());
            assertThat(router.bMsPerSequence()).as(profile.name()).isEqualTo(engine.perDecodeSequenceMs());
            assertThat(router.vMsPerContextToken()).as(profile.name()).isEqualTo(engine.perDecodeContextTokenMs());
            assertThat(router.hMsPerHostToken()).as(profile.name()).isCloseTo(engine.hostLoadMsPerToken(), within(1e-12));
            assertThat(router.stepTokens()).as(profile.name()).isEqualTo(profile.limits().maxBatchedTokens());
            // the engine's steps of at most the step budget (one on the H100s, two on the A100's 2,048 tokens)
            double engineMs = 0;
            for (long done = 0; done < 3_000; ) {
                long chunk = Math.min(profile.limits().maxBatchedTokens(), 3_000 - done);
                engineMs += engine.stepMs(chunk, CostModel.prefillAttention(chunk, 4_000 + done), 0, 0);
                done += chunk;
            }
            assertThat(router.prefillMs(3_000, 4_000)).as(profile.name()).isCloseTo(engineMs, within(1e-9));
        }
        assertThat(EngineProfile.LLAMA_8B_H100.routerModel()).isSameAs(TtftModel.LLAMA_8B_H100);
        assertThat(EngineProfile.LLAMA_8B_A100.routerModel()).isSameAs(TtftModel.LLAMA_8B_A100);
        assertThat(EngineProfile.LLAMA_70B_4XH100.withKvBlocks(10_000).routerModel()).isSameAs(TtftModel.LLAMA_70B_4XH100);
    }
}
