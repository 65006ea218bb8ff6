package io.kvroute.worker.consumer.internal;

import io.kvroute.worker.engine.EngineFailure;
import java.util.OptionalLong;

/**
 * Whether, and when, a worker runs a request again on itself after a try failed. These failure
 * kinds are retried: {@link EngineFailure.Kind#UNAVAILABLE UNAVAILABLE} (refused connection),
 * {@link EngineFailure.Kind#SERVER_ERROR SERVER_ERROR} (5xx),
 * {@link EngineFailure.Kind#STREAM_BROKEN STREAM_BROKEN}, {@link EngineFailure.Kind#TIMEOUT TIMEOUT}
 * and {@link EngineFailure.Kind#ENGINE ENGINE} (the request could not be sent, the engine failed
 * internally). Never retried: {@link EngineFailure.Kind#RATE_LIMITED RATE_LIMITED}, as the worker's
 * telemetry tells the router to cool the pool down and a retry on the same pool would only meet the
 * same limit, and {@link EngineFailure.Kind#REJECTED REJECTED}, the request itself was refused.
 *
 * <p>At most {@code maxRetries} retries ({@code worker.retry.max}); retry {@code n} (from 1) is
 * due {@code backoffMs * 2^(n-1)} after the failure, the doubling capped at
 * 2^{@value #MAX_DOUBLINGS}; a retry that would be due at or after the request's deadline is not
 * made. Pure: the caller passes the time.
 *
 * @param maxRetries how many times one dispatch attempt may be retried on this worker
 * @param backoffMs  the wait before the first retry
 */
public record RetryBackoff(int maxRetries, long backoffMs) {
    /** The most times the backoff doubles: later retries wait {@code backoffMs * 2^MAX_DOUBLINGS}. */
    public static final int MAX_DOUBLINGS = 20;

    public RetryBackoff {
        if (maxRetries < 0) {
            throw new IllegalArgumentException("maxRetries must not be negative, was " + maxRetries);
        }
        if (backoffMs < 1) {
            throw new IllegalArgumentException("backoffMs must be at least 1, was " + backoffMs);
        }
    }

    /**
     * When the next try is due, or empty if the failed try is not retried.
     *
     * @param retriesMade how many retries this attempt has had before the try that failed (0: the first try failed)
     * @param kind        why the try failed
     * @param nowMs       when it failed
     * @param deadlineMs  the request's deadline, or null if it has none
     */
    public OptionalLong nextTryDueMs(int retriesMade, EngineFailure.Kind kind, long nowMs, Long deadlineMs) {
        if (!retried(kind) || retriesMade >= maxRetries) {
            return OptionalLong.empty();
        }
        long dueMs = nowMs + backoffMs * (1L << Math.min(retriesMade, MAX_DOUBLINGS));
        if (deadlineMs != null && dueMs >= deadlineMs) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(dueMs);
    }

    /** True for the kinds this worker retries; a new kind must be placed here (the switch has no default). */
    private static boolean retried(EngineFailure.Kind kind) {
        return switch (kind) {
            case UNAVAILABLE, SERVER_ERROR, STREAM_BROKEN, TIMEOUT, ENGINE -> true;
            case RATE_LIMITED, REJECTED -> false;
        };
    }
}
