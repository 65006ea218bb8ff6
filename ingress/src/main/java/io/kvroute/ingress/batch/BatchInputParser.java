package io.kvroute.ingress.batch;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvroute.ingress.client.SubmitRequest;
import io.kvroute.schemas.v1.ChatMessage;
import io.kvroute.schemas.v1.SamplingParams;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Parses OpenAI Batch input JSONL: one {@code {"custom_id", "method": "POST", "url", "body"}} per
 * line, {@code url} being {@code /v1/chat/completions} (body {@code messages}) or
 * {@code /v1/completions} (body {@code prompt}). Body fields used: {@code model},
 * {@code max_tokens} (or {@code max_completion_tokens}; {@value #DEFAULT_MAX_TOKENS} when absent),
 * {@code temperature}, {@code top_p}, {@code seed}, {@code stop}; message content may be a string
 * or a list of text parts. A line that cannot be used becomes a {@link BatchLine.Malformed} with
 * its number and reason (never its content), and reading goes on. Blank lines are skipped;
 * a repeated {@code custom_id} is malformed, as in OpenAI's validation.
 */
public final class BatchInputParser {
    public static final int DEFAULT_MAX_TOKENS = 256;

    private final ObjectMapper json;
    private final String tenant;

    /** @param tenant the tenant every request is submitted under, or null for the client's default */
    public BatchInputParser(ObjectMapper json, String tenant) {
        this.json = json;
        this.tenant = tenant;
    }

    public BatchInputParser() {
        this(new ObjectMapper(), null);
    }

    /** Reads every line, handing each non-blank one to {@code sink}; returns the counts. */
    public BatchInputSummary read(BufferedReader input, Consumer<BatchLine> sink) {
        Set<String> customIds = new HashSet<>();
        List<BatchLine.Malformed> malformed = new ArrayList<>();
        int parsed = 0;
        int number = 0;
        try {
            for (String text = input.readLine(); text != null; text = input.readLine()) {
                number++;
                if (text.isBlank()) {
                    continue;
                }
                BatchLine line = parseLine(text, number);
                if (line instanceof BatchLine.Parsed p && !customIds.add(p.customId())) {
                    line = new BatchLine.Malformed(number, "duplicate custom_id '" + p.customId() + "'");
                }
                if (line instanceof BatchLine.Malformed m) {
                    malformed.add(m);
                } else {
                    parsed++;
                }
                sink.accept(line);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read batch input at line " + (number + 1), e);
        }
        return new BatchInputSummary(number, parsed, malformed);
    }

    public BatchLine parseLine(String text, int lineNumber) {
        try {
            return parse(json.readTree(text), lineNumber);
        } catch (JsonProcessingException e) {
            return new BatchLine.Malformed(lineNumber, "not valid JSON (column " + e.getLocation().getColumnNr() + ")");
        } catch (InvalidLine | IllegalArgumentException e) {
            return new BatchLine.Malformed(lineNumber, e.getMessage());
        }
    }

    private BatchLine parse(JsonNode root, int lineNumber) {
        if (root == null || !root.isObject()) {
            throw new InvalidLine("a line must be a JSON object");
        }
        String customId = requiredText(root, "custom_id");
        String method = requiredText(root, "method");
        if (!method.equals("POST")) {
            throw new InvalidLine("method must be POST, was '" + method + "'");
        }
        String url = requiredText(root, "url");
        BatchEndpoint endpoint = BatchEndpoint.forUrl(url)
                .orElseThrow(() -> new InvalidLine("url must be /v1/chat/completions or /v1/completions, was '" + url + "'"));
        JsonNode body = root.get("body");
        if (body == null || !body.isObject()) {
            throw new InvalidLine("body must be a JSON object");
        }
        SubmitRequest.Builder request = SubmitRequest.builder()
                .customId(customId)
                .tenant(tenant)
                .model(requiredText(body, "model"))
                .maxTokens(maxTokens(body))
                .sampling(sampling(body));
        if (body.has("n") && body.get("n").asInt(1) != 1) {
            throw new InvalidLine("body.n must be 1");
        }
        if (endpoint == BatchEndpoint.CHAT_COMPLETIONS) {
            request.messages(messages(body));
        } else {
            JsonNode prompt = body.get("prompt");
            if (prompt == null || !prompt.isTextual()) {
                throw new InvalidLine("body.prompt must be a string for /v1/completions");
            }
            request.prompt(prompt.asText());
        }
        return new BatchLine.Parsed(lineNumber, customId, endpoint, request.build());
    }

    private static int maxTokens(JsonNode body) {
        JsonNode node = body.has("max_tokens") ? body.get("max_tokens") : body.get("max_completion_tokens");
        if (node == null || node.isNull()) {
            return DEFAULT_MAX_TOKENS;
        }
        if (!node.canConvertToInt() || !node.isIntegralNumber() || node.asInt() < 1) {
            throw new InvalidLine("body.max_tokens must be a positive integer");
        }
        return node.asInt();
    }

    private static SamplingParams sampling(JsonNode body) {
        SamplingParams.Builder params = SamplingParams.newBuilder()
                .setTemperature(optionalNumber(body, "temperature"))
                .setTopP(optionalNumber(body, "top_p"));
        JsonNode seed = body.get("seed");
        if (seed != null && !seed.isNull()) {
            if (!seed.isIntegralNumber()) {
                throw new InvalidLine("body.seed must be an integer");
            }
            params.setSeed(seed.asLong());
        }
        params.setStop(stop(body.get("stop")));
        return params.build();
    }

    private static Double optionalNumber(JsonNode body, String field) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isNumber()) {
            throw new InvalidLine("body." + field + " must be a number");
        }
        return node.asDouble();
    }

    private static List<String> stop(JsonNode node) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (node.isTextual()) {
            return List.of(node.asText());
        }
        if (node.isArray()) {
            List<String> stops = new ArrayList<>();
            node.forEach(s -> {
                if (!s.isTextual()) {
                    throw new InvalidLine("body.stop must be a string or a list of strings");
                }
                stops.add(s.asText());
            });
            return stops;
        }
        throw new InvalidLine("body.stop must be a string or a list of strings");
    }

    private static List<ChatMessage> messages(JsonNode body) {
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw new InvalidLine("body.messages must be a non-empty list for /v1/chat/completions");
        }
        List<ChatMessage> out = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            JsonNode message = messages.get(i);
            if (!message.isObject()) {
                throw new InvalidLine("body.messages[" + i + "] must be an object");
            }
            JsonNode role = message.get("role");
            if (role == null || !role.isTextual()) {
                throw new InvalidLine("body.messages[" + i + "].role must be a string");
            }
            out.add(new ChatMessage(role.asText(), content(message.get("content"), i)));
        }
        return out;
    }

    private static String content(JsonNode content, int index) {
        if (content != null && content.isTextual()) {
            return content.asText();
        }
        if (content != null && content.isArray()) {
            StringBuilder text = new StringBuilder();
            for (JsonNode part : content) {
                JsonNode partText = part.get("text");
                if (!"text".equals(part.path("type").asText()) || partText == null || !partText.isTextual()) {
                    throw new InvalidLine("body.messages[" + index + "].content: only text parts are supported");
                }
                text.append(partText.asText());
            }
            return text.toString();
        }
        throw new InvalidLine("body.messages[" + index + "].content must be a string or a list of text parts");
    }

    private static String requiredText(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual() || value.asText().isEmpty()) {
            throw new InvalidLine(field + " must be a non-empty string");
        }
        return value.asText();
    }

    private static final class InvalidLine extends RuntimeException {
        private InvalidLine(String message) {
            super(message, null, false, false);
        }
    }
}
