package io.kvroute.worker.engine.openai.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LlamaCppSlotsTest {

    @Test
    void shouldCountTheTokensOfProcessingSlotsOverAllSlotsContexts() {
        String page = "[{\"id\":0,\"n_ctx\":2048,\"is_processing\":true,\"id_task\":3,\"n_prompt_tokens\":700,"
                + "\"next_token\":[{\"n_decoded\":20}]},"
                + "{\"id\":1,\"n_ctx\":2048,\"is_processing\":false,\"id_task\":1,\"n_prompt_tokens\":1900},"
                + "{\"id\":2,\"n_ctx\":2048,\"is_processing\":true,\"n_past\":5000}]";

        LlamaCppSlots.Fill fill = LlamaCppSlots.parse(page).orElseThrow();

        assertThat(fill).as("a slot holds at most its context").isEqualTo(new LlamaCppSlots.Fill(700 + 2048, 3 * 2048));
        assertThat(fill.usage()).isEqualTo((700 + 2048) / (3.0 * 2048));
    }

    @Test
    void shouldTellNothingWhenAProcessingSlotGivesNoTokenCount() {
        assertThat(LlamaCppSlots.parse("[{\"id\":0,\"n_ctx\":2048,\"is_processing\":true,\"id_task\":3,"
                + "\"next_token\":{\"n_decoded\":20}}]")).isEmpty();
        assertThat(LlamaCppSlots.parse("[]")).isEmpty();
        assertThat(LlamaCppSlots.parse("{\"error\":{\"code\":501}}")).isEmpty();
        assertThat(LlamaCppSlots.parse("not json")).isEmpty();
    }
}
