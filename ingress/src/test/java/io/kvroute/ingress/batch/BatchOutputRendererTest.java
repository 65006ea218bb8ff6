package io.kvroute.ingress.batch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvroute.ingress.client.Completion;
import io.kvroute.ingress.client.TokenUsage;
import io.kvroute.schemas.v1.ResponseStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BatchOutputRendererTest {
    private final ObjectMapper json = new ObjectMapper();
    private final BatchOutputRenderer renderer = new BatchOutputRenderer(json);

    @Test
    void shouldRenderACompletedChatResultInOpenAiBatchShape() throws Exception {
        Completion completion = completed("r1", "cid-1", "Hello there");

        JsonNode line = json.readTree(renderer.render(completion, new ManifestEntry("r1", "cid-1", BatchEndpoint.CHAT_COMPLETIONS, "llama-3.1-8b")));

        assertThat(line.get("id").asText()).isEqualTo("batch_req_r1");
        assertThat(line.get("custom_id").asText()).isEqualTo("cid-1");
        assertThat(line.get("error").isNull()).isTrue();
        JsonNode response = line.get("response");
        assertThat(response.get("status_code").asInt()).isEqualTo(200);
        assertThat(response.get("request_id").asText()).isEqualTo("r1");
        JsonNode body = response.get("body");
        assertThat(body.get("id").asText()).isEqualTo("chatcmpl-r1");
        assertThat(body.get("object").asText()).isEqualTo("chat.completion");
        assertThat(body.get("model").asText()).isEqualTo("llama-3.1-8b");
        assertThat(body.get("created").asLong()).isEqualTo(1_700_000_000L);
        JsonNode choice = body.get("choices").get(0);
        assertThat(choice.get("index").asInt()).isZero();
        assertThat(choice.get("message").get("role").asText()).isEqualTo("assistant");
        assertThat(choice.get("message").get("content").asText()).isEqualTo("Hello there");
        assertThat(choice.get("finish_reason").asText()).isEqualTo("stop");
        JsonNode usage = body.get("usage");
        assertThat(usage.get("prompt_tokens").asInt()).isEqualTo(120);
        assertThat(usage.get("completion_tokens").asInt()).isEqualTo(3);
        assertThat(usage.get("total_tokens").asInt()).isEqualTo(123);
        assertThat(usage.get("prompt_tokens_details").get("cached_tokens").asInt()).isEqualTo(64);
    }

    @Test
    void shouldRenderACompletionEndpointResultWithText() throws Exception {
        JsonNode body = json.readTree(renderer.render(completed("r2", "c2", "text out"),
                new ManifestEntry("r2", "c2", BatchEndpoint.COMPLETIONS, "m"))).get("response").get("body");

        assertThat(body.get("object").asText()).isEqualTo("text_completion");
        assertThat(body.get("id").asText()).isEqualTo("cmpl-r2");
        assertThat(body.get("choices").get(0).get("text").asText()).isEqualTo("text out");
        assertThat(body.get("choices").get(0).has("message")).isFalse();
    }

    @Test
    void shouldRenderAFailureAsAnErrorWithNoResponse() throws Exception {
        Completion rejected = new Completion("r3", "c3", ResponseStatus.REJECTED, "", null, TokenUsage.NONE, null, null, null,
                "no worker serves model x", 1, 0, true);

        JsonNode line = json.readTree(renderer.render(rejected, null));

        assertThat(line.get("custom_id").asText()).isEqualTo("c3");
        assertThat(line.get("response").isNull()).isTrue();
        assertThat(line.get("error").get("code").asText()).isEqualTo("rejected");
        assertThat(line.get("error").get("message").asText()).isEqualTo("no worker serves model x");
    }

    @Test
    void shouldRenderAMissingResult() throws Exception {
        JsonNode line = json.readTree(renderer.renderMissing(new ManifestEntry("r4", "c4", BatchEndpoint.COMPLETIONS, "m")));

        assertThat(line.get("id").asText()).isEqualTo("batch_req_r4");
        assertThat(line.get("custom_id").asText()).isEqualTo("c4");
        assertThat(line.get("response").isNull()).isTrue();
        assertThat(line.get("error").get("code").asText()).isEqualTo(BatchOutputRenderer.MISSING_CODE);
    }

    @Test
    void shouldRoundTripTheManifestAndAcceptPlainIds(@TempDir Path dir) throws Exception {
        BatchManifest manifest = new BatchManifest(json);
        ManifestEntry entry = new ManifestEntry("r5", "c5", BatchEndpoint.COMPLETIONS, "m");
        Path file = dir.resolve("manifest.jsonl");
        Files.writeString(file, manifest.line(entry) + "\n\nplain-id\n");

        Map<String, ManifestEntry> read = manifest.read(file);

        assertThat(read).containsOnlyKeys("r5", "plain-id");
        assertThat(read.get("r5")).isEqualTo(entry);
        assertThat(read.get("plain-id").endpoint()).isEqualTo(BatchEndpoint.CHAT_COMPLETIONS);
    }

    private static Completion completed(String id, String customId, String text) {
        return new Completion(id, customId, ResponseStatus.COMPLETED, text, "stop", new TokenUsage(120, 3, 64), 35L, "w-1", "eu-west",
                null, 1, 1_700_000_000_123L, true);
    }
}
