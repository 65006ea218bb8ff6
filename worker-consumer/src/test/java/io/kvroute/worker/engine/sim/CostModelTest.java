package io.kvroute.worker.engine.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class CostModelTest {
    private final CostModel model = CostModel.llama8bH100();

    @Test
    void shouldTakeAbout27MsToPrefillAnIdle1kPrompt() {
        assertThat(model.idlePrefillMs(1000, 0)).isCloseTo(27.0, within(0.5));
    }

    @Test
    void shouldMatchTheDocumentedLongPromptFigures() {
        assertThat(model.idlePrefillMs(8192, 0)).isCloseTo(210.0, within(10.0));
        assertThat(model.idlePrefillMs(32768, 0)).isCloseTo(1400.0, within(60.0));
    }

    @Test
    void shouldTakeAbout6Point6MsPerDecodeStepAtBatchOne() {
        assertThat(model.decodeMs(1, 1000)).isCloseTo(6.6, within(0.1));
    }

    @Test
    void shouldMatchTheDocumentedBatchedDecodeFigures() {
        assertThat(model.decodeMs(64, 2048)).isCloseTo(16.7, within(0.3));
        assertThat(model.decodeMs(256, 1024)).isCloseTo(27.5, within(0.3));
    }

    @Test
    void shouldChargeCachedTokensOnlyForAttention() {
        double cold = model.idlePrefillMs(4096, 0);
        double warm = model.idlePrefillMs(4096, 3840);
        assertThat(warm).isLessThan(cold / 3);
        assertThat(warm).isGreaterThan(model.idlePrefillMs(256, 0));
    }

    @Test
    void shouldRunFasterWithAHigherSpeedFactor() {
        assertThat(CostModel.llama8bH100(2.0).decodeMs(1, 1000)).isCloseTo(model.decodeMs(1, 1000) / 2, within(1e-9));
    }
}
