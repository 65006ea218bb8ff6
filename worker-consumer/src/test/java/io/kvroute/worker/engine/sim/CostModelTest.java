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

    @Test
    void shouldChargeAboutFivePointTwoMicrosecondsPerTokenLoadedFromHostMemory() {
        assertThat(CostModel.LLAMA_8B_KV_BYTES_PER_TOKEN).isEqualTo(128 * 1024);
        assertThat(model.hostLoadMsPerToken()).isCloseTo(131_072 / 25e9 * 1000, within(1e-12));
        assertThat(model.hostLoadMsPerToken()).isCloseTo(0.0052, within(0.0001));
        assertThat(model.stepMs(0, 0, 0, 0, 1000) - model.stepMs(0, 0, 0, 0)).isCloseTo(5.24288, within(1e-9));
        assertThat(CostModel.llama8bH100(2.0).stepMs(0, 0, 0, 0, 1000)).isCloseTo(model.stepMs(0, 0, 0, 0, 1000) / 2, within(1e-9));
    }

    @Test
    void shouldLoadAPrefixFasterThanRecomputingIt() {
        double load = model.stepMs(0, 0, 0, 0, 32_768) - model.stepMs(0, 0, 0, 0);
        assertThat(load).isLessThan(model.idlePrefillMs(32_768, 0) / 5);
    }

    @Test
    void shouldKeepTheSixArgumentConstructorWithTheDefaultLoadCost() {
        CostModel custom = new CostModel(12.6, 0.076, 1.6e-6, 0.0044, 4.8e-5, 1.0);
        assertThat(custom.hostLoadMsPerToken()).isEqualTo(CostModel.LLAMA_8B_PCIE5_HOST_LOAD_TOKEN_MS);
        assertThat(custom.withHostLoadMsPerToken(0.001).hostLoadMsPerToken()).isEqualTo(0.001);
    }
}
