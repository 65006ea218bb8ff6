package io.kvroute.router.admission;

import io.kvroute.schemas.v1.ChatMessage;
import io.kvroute.schemas.v1.InferenceRequest;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Checks a decoded request before routing: it must have an id, no more messages, stop strings and
 * prefix block hashes than the {@link Bounds}, a cache salt of at most {@value #MAX_CACHE_SALT_CHARS}
 * characters, a prompt or non-empty messages,
 * a configured model, maxTokens within the model's context, a prompt within the size limit, a
 * deadline not yet passed and, if it restricts regions, at least one known region.
 */
public final class RequestValidator {
    /**
     * Longest cache salt accepted. Ingress sends 32 hex characters; other producers may choose their
     * own, but a salt is an identifier, not data, and it is copied into every dispatch record and
     * server request.
     */
    public static final int MAX_CACHE_SALT_CHARS = 256;

    private final Map<String, Integer> modelContextTokens;
    private final int maxPromptTokens;
    private final Set<String> knownRegions;
    private final Bounds bounds;

    /**
     * How many items of each list a request may carry. The list sizes are not tied to the prompt's
     * token count (500,000 empty messages are a prompt of no tokens), so each has its own bound.
     */
    public record Bounds(int maxMessages, int maxStopStrings, int maxPrefixHashes) {
        public static final Bounds NONE = new Bounds(Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE);
    }

    public RequestValidator(Map<String, Integer> modelContextTokens, int maxPromptTokens, Collection<String> knownRegions) {
        this(modelContextTokens, maxPromptTokens, knownRegions, Bounds.NONE);
    }

    public RequestValidator(Map<String, Integer> modelContextTokens, int maxPromptTokens, Collection<String> knownRegions,
                            Bounds bounds) {
        this.modelContextTokens = Map.copyOf(modelContextTokens);
        this.maxPromptTokens = maxPromptTokens;
        this.knownRegions = Set.copyOf(knownRegions);
        this.bounds = bounds;
    }

    public Optional<Rejection> validate(InferenceRequest request, long nowMs) {
        if (request.getRequestId() == null || request.getRequestId().isBlank()) {
            return reject(Rejection.EMPTY_REQUEST_ID, "requestId is empty");
        }
        int messages = request.getMessages() == null ? 0 : request.getMessages().size();
        if (messages > bounds.maxMessages()) {
            return reject(Rejection.TOO_MANY_MESSAGES, messages + " messages, more than the limit of " + bounds.maxMessages());
        }
        int stops = request.getSampling() == null || request.getSampling().getStop() == null ? 0 : request.getSampling().getStop().size();
        if (stops > bounds.maxStopStrings()) {
            return reject(Rejection.TOO_MANY_STOP_STRINGS, stops + " stop strings, more than the limit of " + bounds.maxStopStrings());
        }
        int hashes = request.getPrefixBlockHashes() == null ? 0 : request.getPrefixBlockHashes().size();
        if (hashes > bounds.maxPrefixHashes()) {
            return reject(Rejection.TOO_MANY_PREFIX_HASHES, hashes + " prefix block hashes, more than the limit of "
                    + bounds.maxPrefixHashes());
        }
        int saltChars = request.getCacheSalt() == null ? 0 : request.getCacheSalt().length();
        if (saltChars > MAX_CACHE_SALT_CHARS) {
            // its length only: a salt may be a secret's stand-in
            return reject(Rejection.CACHE_SALT_TOO_LONG, "cache salt of " + saltChars + " characters, more than the limit of "
                    + MAX_CACHE_SALT_CHARS);
        }
        Integer context = modelContextTokens.get(request.getModel());
        if (context == null) {
            return reject(Rejection.UNKNOWN_MODEL, "model '" + request.getModel() + "' is not served; known models: "
                    + modelContextTokens.keySet());
        }
        if (isEmptyPrompt(request)) {
            return reject(Rejection.EMPTY_PROMPT, "neither a prompt nor non-empty messages");
        }
        if (request.getMaxTokens() <= 0 || request.getMaxTokens() > context) {
            return reject(Rejection.MAX_TOKENS, "maxTokens " + request.getMaxTokens() + " must be between 1 and "
                    + context + " for model " + request.getModel());
        }
        int promptTokens = promptTokens(request);
        int promptLimit = Math.min(maxPromptTokens, context);
        if (promptTokens > promptLimit) {
            return reject(Rejection.PROMPT_TOO_LONG, "prompt of about " + promptTokens + " tokens exceeds the limit of "
                    + promptLimit);
        }
        if (request.getDeadlineMs() != null && request.getDeadlineMs() <= nowMs) {
            return reject(Rejection.DEADLINE_PASSED, "deadline " + request.getDeadlineMs() + " passed before routing (now "
                    + nowMs + ")");
        }
        List<String> allowed = request.getAllowedRegions();
        if (allowed != null && !allowed.isEmpty() && allowed.stream().noneMatch(knownRegions::contains)) {
            return reject(Rejection.UNKNOWN_REGION, "allowedRegions " + allowed + " names no known region; known: "
                    + knownRegions.stream().sorted().toList());
        }
        return Optional.empty();
    }

    /**
     * The prompt's size in tokens: the larger of the producer's estimate and ceil(characters / 4),
     * so a producer cannot slip a huge prompt past the size limit with a small estimate.
     */
    public static int promptTokens(InferenceRequest request) {
        long chars = 0;
        if (request.getPrompt() != null) {
            chars += request.getPrompt().length();
        }
        if (request.getMessages() != null) {
            for (ChatMessage message : request.getMessages()) {
                chars += message.getContent() == null ? 0 : message.getContent().length();
            }
        }
        return (int) Math.min(Integer.MAX_VALUE, Math.max(request.getPromptTokenEstimate(), (chars + 3) / 4));
    }

    private static boolean isEmptyPrompt(InferenceRequest request) {
        boolean noPrompt = request.getPrompt() == null || request.getPrompt().isEmpty();
        boolean noMessages = request.getMessages() == null || request.getMessages().isEmpty();
        return noPrompt && noMessages;
    }

    private static Optional<Rejection> reject(String kind, String message) {
        return Optional.of(new Rejection(kind, message));
    }
}
