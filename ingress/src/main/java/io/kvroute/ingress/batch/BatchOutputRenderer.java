package io.kvroute.ingress.batch;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvroute.ingress.client.Completion;
import io.kvroute.ingress.client.TokenUsage;
import java.io.UncheckedIOException;
import java.util.Locale;

/**
 * Renders results as OpenAI Batch output JSONL lines:
 * {@code {"id": "batch_req_<requestId>", "custom_id", "response": {"status_code": 200, "request_id",
 * "body": <chat.completion or text_completion>}, "error": null}}. A result that is not COMPLETED
 * has {@code "response": null} and {@code "error": {"code": <status>, "message"}}; an expected
 * request with no result has the code {@value #MISSING_CODE}. Without a manifest entry the endpoint
 * defaults to chat completions and the model is null.
 */
public final class BatchOutputRenderer {
    public static final String MISSING_CODE = "missing";
    public static final String DEFAULT_FINISH_REASON = "stop";

    private final ObjectMapper json;

    public BatchOutputRenderer(ObjectMapper json) {
        this.json = json;
    }

    public BatchOutputRenderer() {
        this(new ObjectMapper());
    }

    /** @param entry what submit recorded for this request, or null when unknown */
    public String render(Completion completion, ManifestEntry entry) {
        BatchEndpoint endpoint = entry == null ? BatchEndpoint.CHAT_COMPLETIONS : entry.endpoint();
        String customId = completion.customId() != null ? completion.customId() : entry == null ? null : entry.customId();
        ObjectNode line = header(completion.requestId(), customId);
        if (completion.isCompleted()) {
            ObjectNode response = line.putObject("response");
            response.put("status_code", 200);
            response.put("request_id", completion.requestId());
            response.set("body", body(completion, endpoint, entry == null ? null : entry.model()));
            line.putNull("error");
        } else {
            line.putNull("response");
            ObjectNode error = line.putObject("error");
            error.put("code", completion.status().name().toLowerCase(Locale.ROOT));
            error.put("message", completion.error() != null ? completion.error()
                    : "request " + completion.status().name().toLowerCase(Locale.ROOT));
        }
        return write(line);
    }

    /** The line for an expected request that has no result. */
    public String renderMissing(ManifestEntry entry) {
        ObjectNode line = header(entry.requestId(), entry.customId());
        line.putNull("response");
        ObjectNode error = line.putObject("error");
        error.put("code", MISSING_CODE);
        error.put("message", "no result for request " + entry.requestId() + " before the collect timed out");
        return write(line);
    }

    private ObjectNode header(String requestId, String customId) {
        ObjectNode line = json.createObjectNode();
        line.put("id", "batch_req_" + requestId);
        line.put("custom_id", customId);
        return line;
    }

    private ObjectNode body(Completion completion, BatchEndpoint endpoint, String model) {
        ObjectNode body = json.createObjectNode();
        body.put("id", endpoint.idPrefix() + completion.requestId());
        body.put("object", endpoint.objectType());
        body.put("created", completion.completedAtMs() / 1000);
        body.put("model", model);
        ArrayNode choices = body.putArray("choices");
        ObjectNode choice = choices.addObject();
        choice.put("index", 0);
        if (endpoint == BatchEndpoint.CHAT_COMPLETIONS) {
            ObjectNode message = choice.putObject("message");
            message.put("role", "assistant");
            message.put("content", completion.text());
        } else {
            choice.put("text", completion.text());
        }
        choice.put("finish_reason", completion.finishReason() != null ? completion.finishReason() : DEFAULT_FINISH_REASON);
        TokenUsage usage = completion.usage();
        ObjectNode usageNode = body.putObject("usage");
        usageNode.put("prompt_tokens", usage.promptTokens());
        usageNode.put("completion_tokens", usage.completionTokens());
        usageNode.put("total_tokens", usage.totalTokens());
        usageNode.putObject("prompt_tokens_details").put("cached_tokens", usage.cachedTokens());
        return body;
    }

    private String write(ObjectNode node) {
        try {
            return json.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
