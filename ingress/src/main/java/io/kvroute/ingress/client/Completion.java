package io.kvroute.ingress.client;

import io.kvroute.schemas.v1.ResponseStatus;

/**
 * The one result of a request, assembled from its response events by {@link ResponseAssembler}:
 * the terminal event of the winning attempt and the concatenated text of that attempt's chunks.
 * {@code textComplete} is false only when the terminal arrived but some of its attempt's chunks
 * did not within the grace period; the text then has the chunks that did arrive, in order.
 * {@code ttftMs}, {@code workerId}, {@code region}, {@code finishReason} and {@code error} may be
 * null; {@code completedAtMs} is the terminal event's production time. {@code tenant} and {@code model} are those the
 * terminal event names (null from older workers).
 */
public record Completion(
        String requestId,
        String customId,
        ResponseStatus status,
        String text,
        String finishReason,
        TokenUsage usage,
        Long ttftMs,
        String workerId,
        String region,
        String error,
        int attempt,
        long completedAtMs,
        boolean textComplete,
        String tenant,
        String model) {

    /** A completion that names no tenant or model. */
    public Completion(String requestId, String customId, ResponseStatus status, String text, String finishReason, TokenUsage usage,
                      Long ttftMs, String workerId, String region, String error, int attempt, long completedAtMs, boolean textComplete) {
        this(requestId, customId, status, text, finishReason, usage, ttftMs, workerId, region, error, attempt, completedAtMs,
                textComplete, null, null);
    }

    /** This completion with the custom id set, for events that did not carry it. */
    public Completion withCustomId(String id) {
        return new Completion(requestId, id, status, text, finishReason, usage, ttftMs, workerId, region, error, attempt,
                completedAtMs, textComplete, tenant, model);
    }

    public boolean isCompleted() {
        return status == ResponseStatus.COMPLETED;
    }
}
