package io.kvroute.ingress.batch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvroute.schemas.v1.ChatMessage;
import java.io.BufferedReader;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchInputParserTest {
    private final BatchInputParser parser = new BatchInputParser();

    @Test
    void shouldParseAChatCompletionLine() {
        BatchLine line = parser.parseLine("""
                {"custom_id": "req-1", "method": "POST", "url": "/v1/chat/completions",
                 "body": {"model": "llama-3.1-8b", "max_tokens": 50, "temperature": 0.2, "top_p": 0.9, "seed": 7, "stop": ["\\n\\n"],
                          "messages": [{"role": "system", "content": "You are terse."},
                                       {"role": "user", "content": [{"type": "text", "text": "Hi "}, {"type": "text", "text": "there"}]}]}}
                """.replace("\n", " "), 3);

        assertThat(line).isInstanceOfSatisfying(BatchLine.Parsed.class, p -> {
            assertThat(p.lineNumber()).isEqualTo(3);
            assertThat(p.customId()).isEqualTo("req-1");
            assertThat(p.endpoint()).isEqualTo(BatchEndpoint.CHAT_COMPLETIONS);
            assertThat(p.request().isChat()).isTrue();
            assertThat(p.request().model()).isEqualTo("llama-3.1-8b");
            assertThat(p.request().maxTokens()).isEqualTo(50);
            assertThat(p.request().customId()).contains("req-1");
            assertThat(p.request().messages().orElseThrow())
                    .containsExactly(new ChatMessage("system", "You are terse."), new ChatMessage("user", "Hi there"));
            assertThat(p.request().sampling().orElseThrow().getTemperature()).isEqualTo(0.2);
            assertThat(p.request().sampling().orElseThrow().getTopP()).isEqualTo(0.9);
            assertThat(p.request().sampling().orElseThrow().getSeed()).isEqualTo(7L);
            assertThat(p.request().sampling().orElseThrow().getStop()).containsExactly("\n\n");
        });
    }

    @Test
    void shouldParseACompletionLineWithDefaults() {
        BatchLine line = parser.parseLine(
                "{\"custom_id\": \"c\", \"method\": \"POST\", \"url\": \"/v1/completions\", \"body\": {\"model\": \"m\", \"prompt\": \"Once\", \"stop\": \"END\"}}", 1);

        assertThat(line).isInstanceOfSatisfying(BatchLine.Parsed.class, p -> {
            assertThat(p.endpoint()).isEqualTo(BatchEndpoint.COMPLETIONS);
            assertThat(p.request().prompt()).contains("Once");
            assertThat(p.request().isChat()).isFalse();
            assertThat(p.request().maxTokens()).isEqualTo(BatchInputParser.DEFAULT_MAX_TOKENS);
            assertThat(p.request().sampling().orElseThrow().getStop()).containsExactly("END");
            assertThat(p.request().tenant()).isEmpty();
        });
    }

    @Test
    void shouldApplyTheTenantGivenToTheParser() {
        BatchLine line = new BatchInputParser(new ObjectMapper(), "acme").parseLine(
                "{\"custom_id\": \"c\", \"method\": \"POST\", \"url\": \"/v1/completions\", \"body\": {\"model\": \"m\", \"prompt\": \"p\", \"max_tokens\": 3}}", 1);

        assertThat(((BatchLine.Parsed) line).request().tenant()).contains("acme");
    }

    @Test
    void shouldReportMalformedLinesWithTheirNumberAndReasonWithoutContent() {
        String input = String.join("\n",
                good("a"),
                "{not json",
                "",
                "{\"custom_id\": \"b\", \"method\": \"GET\", \"url\": \"/v1/completions\", \"body\": {}}",
                "{\"custom_id\": \"c\", \"method\": \"POST\", \"url\": \"/v1/embeddings\", \"body\": {\"model\": \"m\"}}",
                "{\"custom_id\": \"d\", \"method\": \"POST\", \"url\": \"/v1/chat/completions\", \"body\": {\"model\": \"m\", \"prompt\": \"secret prompt\"}}",
                "{\"custom_id\": \"e\", \"method\": \"POST\", \"url\": \"/v1/completions\", \"body\": {\"model\": \"m\", \"prompt\": \"x\", \"max_tokens\": -5}}",
                "[1, 2]",
                good("a"),
                good("f"));
        List<BatchLine> lines = new ArrayList<>();

        BatchInputSummary summary = parser.read(new BufferedReader(new StringReader(input)), lines::add);

        assertThat(summary.linesRead()).isEqualTo(10);
        assertThat(summary.parsed()).isEqualTo(2);
        assertThat(summary.malformed()).extracting(BatchLine.Malformed::lineNumber).containsExactly(2, 4, 5, 6, 7, 8, 9);
        assertThat(summary.malformed()).extracting(BatchLine.Malformed::reason).satisfiesExactly(
                r -> assertThat(r).startsWith("not valid JSON"),
                r -> assertThat(r).contains("POST"),
                r -> assertThat(r).contains("/v1/embeddings"),
                r -> assertThat(r).contains("messages"),
                r -> assertThat(r).contains("max_tokens"),
                r -> assertThat(r).contains("object"),
                r -> assertThat(r).contains("duplicate custom_id"));
        assertThat(summary.malformed()).extracting(Object::toString).noneMatch(s -> s.contains("secret prompt"));
        assertThat(lines).hasSize(9);
    }

    static String good(String customId) {
        return "{\"custom_id\": \"" + customId + "\", \"method\": \"POST\", \"url\": \"/v1/chat/completions\", "
                + "\"body\": {\"model\": \"llama-3.1-8b\", \"max_tokens\": 8, \"messages\": [{\"role\": \"user\", \"content\": \"Say hi to " + customId + "\"}]}}";
    }
}
