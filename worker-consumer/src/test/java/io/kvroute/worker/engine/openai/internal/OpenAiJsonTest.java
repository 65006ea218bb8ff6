package io.kvroute.worker.engine.openai.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class OpenAiJsonTest {

    @Test
    void shouldReadTextDeltasOfCompletionsAndChat() {
        assertThat(OpenAiJson.chunk("{\"choices\":[{\"index\":0,\"text\":\" Paris\",\"finish_reason\":null}],\"usage\":null}"))
                .isEqualTo(new OpenAiJson.Chunk(" Paris", true, null, null, null));
        assertThat(OpenAiJson.chunk("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}"))
                .isEqualTo(new OpenAiJson.Chunk("Hi", true, "stop", null, null));
        assertThat(OpenAiJson.chunk("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}").text()).isNull();
        assertThat(OpenAiJson.chunk("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}").generated()).isFalse();
    }

    @Test
    void shouldCountReasoningAndToolCallDeltasAsGeneratedWithoutAnswerText() {
        OpenAiJson.Chunk sglang = OpenAiJson.chunk("{\"choices\":[{\"index\":0,\"delta\":{\"role\":null,\"content\":null,"
                + "\"reasoning_content\":\"Let me think\",\"tool_calls\":null}}]}");
        OpenAiJson.Chunk newerVllm = OpenAiJson.chunk("{\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\" step\"}}]}");
        OpenAiJson.Chunk toolName = OpenAiJson.chunk("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"call-1\","
                + "\"type\":\"function\",\"index\":0,\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]}}]}");
        OpenAiJson.Chunk toolArguments = OpenAiJson.chunk("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
                + "\"function\":{\"arguments\":\"{\\\"city\\\": \"}}]}}]}");
        OpenAiJson.Chunk emptyToolList = OpenAiJson.chunk("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\",\"tool_calls\":[]}}]}");

        assertThat(List.of(sglang, newerVllm, toolName, toolArguments)).allSatisfy(chunk -> {
            assertThat(chunk.generated()).isTrue();
            assertThat(chunk.text()).isNull();
        });
        assertThat(emptyToolList.generated()).isFalse();
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
        assertThat(OpenAiJson.chunk("{\"error\":{\"message\":\"engine dead\",\"code\":500}}").error())
                .isEqualTo(new OpenAiJson.StreamError("engine dead", 500, null));
        assertThatThrownBy(() -> OpenAiJson.chunk("{\"text\": Paris}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("Paris");
    }

    @Test
    void shouldReadTheErrorOfAnSseErrorEventAndTellRequestErrorsFromServerFailures() {
        OpenAiJson.StreamError server = OpenAiJson.streamError("{\"code\":500,\"message\":\"Compute error.\",\"type\":\"server_error\"}");
        OpenAiJson.StreamError context = OpenAiJson.streamError("{\"error\":{\"code\":400,\"message\":\"the request exceeds the "
                + "available context size, try increasing it\",\"type\":\"exceed_context_size_error\"}}");

        assertThat(server).isEqualTo(new OpenAiJson.StreamError("Compute error.", 500, "server_error"));
        assertThat(server.requestError()).isFalse();
        assertThat(context.requestError()).isTrue();
        assertThat(new OpenAiJson.StreamError("m", 0, "invalid_request_error").requestError()).isTrue();
        assertThat(new OpenAiJson.StreamError("m", 429, null).requestError()).isFalse();
        assertThat(OpenAiJson.streamError("out of memory").message()).isEqualTo("out of memory");
        assertThat(OpenAiJson.streamError("").message()).isNotBlank();
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
