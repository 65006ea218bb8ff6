package io.kvroute.worker.engine.openai.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvroute.worker.engine.EnginePrompt;
import io.kvroute.worker.engine.EngineRequest;
import java.util.Set;

/**
 * The JSON of the OpenAI-compatible API: streaming request bodies for {@code /v1/completions} and
 * {@code /v1/chat/completions}, the chunks of their event streams, and error bodies.
 */
public final class OpenAiJson {
    /** Longest server error message kept in a terminal event. */
    public static final int MAX_ERROR_CHARS = 500;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** Usage as the server reports it; {@code cachedTokens} is 0 when the server omits it. */
    public record Usage(int promptTokens, int completionTokens, int cachedTokens) {
    }

    /**
     * One parsed stream chunk.
     *
     * @param text         the text delta of the first choice, or null/empty
     * @param generated    whether the first choice carries generated tokens: answer text, or a chat
     *                     delta's reasoning ({@code reasoning_content}, or {@code reasoning} in newer
     *                     vLLM) or tool-call name/arguments, which are tokens the model generated
     *                     although they are not answer text
     * @param finishReason the first choice's finish reason, or null
     * @param usage        the usage, present in the last chunk with {@code include_usage}
     * @param error        an error the server reported inside the stream, or null
     */
    public record Chunk(String text, boolean generated, String finishReason, Usage usage, StreamError error) {
    }

    /**
     * An error a server reported inside a stream that had started with HTTP 200.
     *
     * @param message the server's message, cut to {@value #MAX_ERROR_CHARS} characters
     * @param code    the HTTP-like code the server gave the error, or 0
     * @param type    the error's type ({@code server_error}, {@code invalid_request_error}...), or null
     */
    public record StreamError(String message, int code, String type) {
        /** Types that llama.cpp, OpenAI and vLLM give errors of the request itself. */
        private static final Set<String> REQUEST_ERROR_TYPES = Set.of("invalid_request_error", "exceed_context_size_error",
                "not_supported_error", "authentication_error", "permission_error", "not_found_error", "BadRequestError");

        /**
         * Whether the request itself was at fault (a 4xx code other than 408 and 429, or without a
         * code a request-error type), so that another try would get the same answer.
         */
        public boolean requestError() {
            if (code >= 400 && code < 500) {
                return code != 408 && code != 429;
            }
            return code == 0 && type != null && REQUEST_ERROR_TYPES.contains(type);
        }
    }

    private OpenAiJson() {
    }

    /** The path a prompt goes to: chat messages to the chat API, a plain prompt to completions. */
    public static String path(EnginePrompt prompt) {
        return prompt.isChat() ? "/v1/chat/completions" : "/v1/completions";
    }

    /** The streaming body of {@code request}, without its cache salt. */
    public static byte[] requestBody(EngineRequest request, String model) {
        return requestBody(request, model, "");
    }

    /**
     * The streaming body of {@code request}; its cache salt, when it has one, goes in
     * {@code cacheSaltField} unless that is empty.
     */
    public static byte[] requestBody(EngineRequest request, String model, String cacheSaltField) {
        EnginePrompt prompt = request.prompt();
        ObjectNode body = MAPPER.createObjectNode();
        body.put("model", model);
        if (prompt.isChat()) {
            ArrayNode messages = body.putArray("messages");
            prompt.messages().forEach(m -> messages.addObject().put("role", m.role()).put("content", m.content()));
        } else {
            body.put("prompt", prompt.prompt());
        }
        body.put("max_tokens", request.maxTokens());
        body.put("stream", true);
        body.putObject("stream_options").put("include_usage", true);
        if (prompt.temperature() != null) {
            body.put("temperature", prompt.temperature());
        }
        if (prompt.topP() != null) {
            body.put("top_p", prompt.topP());
        }
        if (prompt.seed() != null) {
            body.put("seed", prompt.seed());
        }
        if (!prompt.stop().isEmpty()) {
            ArrayNode stop = body.putArray("stop");
            prompt.stop().forEach(stop::add);
        }
        if (prompt.cacheSalt() != null && !prompt.cacheSalt().isEmpty() && cacheSaltField != null && !cacheSaltField.isEmpty()) {
            body.put(cacheSaltField, prompt.cacheSalt());
        }
        try {
            return MAPPER.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("request body not serializable", e);
        }
    }

    /** Parses one event's data; throws {@link IllegalArgumentException} if it is not a JSON object. */
    public static Chunk chunk(String data) {
        JsonNode root;
        try {
            root = MAPPER.readTree(data);
        } catch (JsonProcessingException e) {
            // the parser's message may quote completion text: report the size only
            throw new IllegalArgumentException("stream event of " + data.length() + " chars is not JSON");
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("stream event is not a JSON object");
        }
        if (root.hasNonNull("error")) {
            return new Chunk(null, false, null, null, streamError(root));
        }
        String text = null;
        boolean generated = false;
        String finishReason = null;
        JsonNode choice = root.path("choices").path(0);
        if (choice.isObject()) {
            JsonNode delta = choice.path("delta");
            text = textOf(delta.isObject() ? delta.path("content") : choice.path("text"));
            generated = text != null && !text.isEmpty() || delta.isObject() && generatedBesideContent(delta);
            finishReason = textOf(choice.path("finish_reason"));
        }
        Usage usage = null;
        JsonNode u = root.path("usage");
        if (u.isObject()) {
            usage = new Usage(u.path("prompt_tokens").asInt(0), u.path("completion_tokens").asInt(0),
                    u.path("prompt_tokens_details").path("cached_tokens").asInt(0));
        }
        return new Chunk(text, generated, finishReason, usage, null);
    }

    /** Whether a chat delta carries reasoning text or a tool call's name or argument text. */
    private static boolean generatedBesideContent(JsonNode delta) {
        if (nonEmpty(delta.path("reasoning_content")) || nonEmpty(delta.path("reasoning"))) {
            return true;
        }
        for (JsonNode call : delta.path("tool_calls")) {
            JsonNode function = call.path("function");
            if (nonEmpty(function.path("name")) || nonEmpty(function.path("arguments"))) {
                return true;
            }
        }
        return false;
    }

    private static boolean nonEmpty(JsonNode node) {
        return node.isTextual() && !node.asText().isEmpty();
    }

    /**
     * The error of a stream event: {@code {"error": {...}}} (vLLM, SGLang, llama.cpp since mid-2025),
     * or the error object itself, as the data of an SSE {@code error} event (older llama.cpp builds
     * wrote {@code error: {"code":500,"message":...,"type":"server_error"}}); data that is not JSON is
     * the message.
     */
    public static StreamError streamError(String data) {
        try {
            JsonNode root = MAPPER.readTree(data);
            if (root != null && root.isObject()) {
                return streamError(root);
            }
        } catch (JsonProcessingException e) {
            // not JSON: the data is the message
        }
        String message = data.strip();
        return new StreamError(cut(message.isEmpty() ? "the server reported an error event without details" : message), 0, null);
    }

    private static StreamError streamError(JsonNode root) {
        JsonNode error = root.has("error") ? root.path("error") : root;
        String message = errorMessage(root);
        return new StreamError(cut(message == null ? error.toString() : message), error.path("code").asInt(0),
                textOf(error.path("type")));
    }

    /**
     * The message of an error body: OpenAI's {@code {"error": {"message": ...}}}, vLLM's and SGLang's
     * {@code {"object": "error", "message": ...}}, FastAPI's {@code {"detail": ...}} (validation errors
     * without the input they echo), or the body itself, cut to {@value #MAX_ERROR_CHARS} characters.
     */
    public static String errorMessage(String body) {
        try {
            JsonNode root = MAPPER.readTree(body);
            if (root != null && root.isObject()) {
                String message = errorMessage(root);
                if (message != null) {
                    return cut(message);
                }
            }
        } catch (JsonProcessingException e) {
            // not JSON: the body is the message
        }
        return cut(body.strip());
    }

    private static String errorMessage(JsonNode root) {
        JsonNode error = root.path("error");
        if (error.isObject() && error.hasNonNull("message")) {
            return error.get("message").asText();
        }
        if (error.isTextual()) {
            return error.asText();
        }
        if (root.hasNonNull("message")) {
            return root.get("message").asText();
        }
        JsonNode detail = root.path("detail");
        if (detail.isTextual()) {
            return detail.asText();
        }
        if (detail.isArray()) {
            // FastAPI validation errors echo the offending input (possibly the prompt): keep only their messages
            StringBuilder messages = new StringBuilder();
            detail.forEach(d -> {
                if (d.hasNonNull("msg")) {
                    messages.append(messages.length() == 0 ? "" : "; ").append(d.path("loc")).append(' ').append(d.get("msg").asText());
                }
            });
            return messages.length() == 0 ? "request validation failed" : messages.toString();
        }
        return error.isMissingNode() ? null : error.toString();
    }

    private static String textOf(JsonNode node) {
        return node.isTextual() ? node.asText() : null;
    }

    private static String cut(String s) {
        return s.length() <= MAX_ERROR_CHARS ? s : s.substring(0, MAX_ERROR_CHARS) + "...";
    }
}
