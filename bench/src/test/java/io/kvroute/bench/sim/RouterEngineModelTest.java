package io.kvroute.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.kvroute.router.routing.TtftModel;
import io.kvroute.worker.engine.sim.CostModel;
import io.kvroute.worker.engine.sim.EngineLimits;
import org.junit.jupiter.api.Test;

/**
 * The router's model of the engine ({@link TtftModel}, in router-streams, which does not depend on
 * the worker) must hold the coefficients the simulated engine runs, or the bench would measure the
 * estimate against a different engine than the one it models.
 */
class RouterEngineModelTest {
    @Test
    void shouldEstimateWithTheSimulatedEnginesOwnCoefficients() {
        TtftModel router = TtftModel.LLAMA_8B_H100;
        CostModel engine = EngineProfile.LLAMA_8B_H100.costModel();

        assertThat(router.t0Ms()).isEqualTo(engine.stepOverheadMs());
        assertThat(router.aMsPerToken()).isEqualTo(engine.perPrefillTokenMs());
        assertThat(router.kMsPerTokenPair()).isEqualTo(engine.attentionMsPerTokenSquared());
        assertThat(router.bMsPerSequence()).isEqualTo(engine.perDecodeSequenceMs());
        assertThat(router.vMsPerContextToken()).isEqualTo(engine.perDecodeContextTokenMs());
        assertThat(router.hMsPerHostToken()).isCloseTo(engine.hostLoadMsPerToken(), within(1e-12));
        assertThat(router.stepTokens()).isEqualTo(EngineLimits.DEFAULT_MAX_BATCHED_TOKENS);
        assertThat(router.prefillMs(3_000, 4_000)).isCloseTo(engine.stepMs(3_000, CostModel.prefillAttention(3_000, 4_000), 0, 0),
                within(1e-9));
    }
}
