package io.kvroute.worker.engine.openai.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OpenAiJsonTest {

    @Test
    void shouldReadTextDeltasOfCompletionsAndChat() {
        assertThat(OpenAiJson.chunk("{\"choices\":[{\"index\":0,\"text\":\" Paris\",\"finish_reason\":null}],\"usage\":null}"))
                .isEqualTo(new OpenAiJson.Chunk(" Paris", null, null, null));
        assertThat(OpenAiJson.chunk("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}"))
                .isEqualTo(new OpenAiJson.Chunk("Hi", "stop", null, null));
        assertThat(OpenAiJson.chunk("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}").text()).isNull();
    }

    @Test
    void shouldReadUsageWithAndWithoutCachedTokens() {
        assertThat(OpenAiJson.chunk("{\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":3,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":8}}}").usage()).isEqualTo(new OpenAiJson.Usage(10, 3, 8));
        assertThat(OpenAiJson.chunk("{\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":3,"
                + "\"prompt_tokens_details\":null}}").usage()).isEqualTo(new OpenAiJson.Usage(10, 3, 0));
    }

    @Test
    void shouldReadErrorsInsideTheStream() {
        assertThat(OpenAiJson.chunk("{\"error\":{\"message\":\"engine dead\",\"code\":500}}").error()).isEqualTo("engine dead");
        assertThatThrownBy(() -> OpenAiJson.chunk("{\"text\": Paris}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("Paris");
    }

    @Test
    void shouldTakeTheMessageOfEachErrorBodyShape() {
        assertThat(OpenAiJson.errorMessage("{\"error\":{\"message\":\"openai style\"}}")).isEqualTo("openai style");
        assertThat(OpenAiJson.errorMessage("{\"object\":\"error\",\"message\":\"vllm style\",\"code\":400}")).isEqualTo("vllm style");
        assertThat(OpenAiJson.errorMessage("{\"detail\":\"Not Found\"}")).isEqualTo("Not Found");
        assertThat(OpenAiJson.errorMessage("  plain text \n")).isEqualTo("plain text");
        assertThat(OpenAiJson.errorMessage("{\"detail\":[{\"type\":\"missing\",\"loc\":[\"body\",\"model\"],"
                + "\"msg\":\"Field required\",\"input\":{\"prompt\":\"secret user text\"}}]}"))
                .isEqualTo("[\"body\",\"model\"] Field required").doesNotContain("secret");
        assertThat(OpenAiJson.errorMessage("x".repeat(2_000))).hasSize(OpenAiJson.MAX_ERROR_CHARS + 3);
    }
}
