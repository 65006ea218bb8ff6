package io.kvroute.worker.engine;

import java.util.Objects;

/**
 * Why an engine could not finish a request, classified so the worker knows whether another
 * attempt can succeed: everything but {@link Kind#REJECTED} is worth retrying elsewhere or later.
 *
 * @param kind    the classification
 * @param message a description for the terminal event; never the prompt or the completion text
 */
public record EngineFailure(Kind kind, String message) {

    /** The classes of failure. */
    public enum Kind {
        /** The server could not be reached (connection refused or reset before a response). */
        UNAVAILABLE,
        /** The server answered 5xx. */
        SERVER_ERROR,
        /** The stream ended before its end marker. */
        STREAM_BROKEN,
        /** No answer within the request timeout. */
        TIMEOUT,
        /** The server answered 429: it is over its rate limit. */
        RATE_LIMITED,
        /** The server refused the request itself (a 4xx other than 429): retrying cannot help. */
        REJECTED,
        /** The engine failed internally, or was closed. */
        ENGINE
    }

    public EngineFailure {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(message, "message");
    }

    public boolean retryable() {
        return kind != Kind.REJECTED;
    }

    /** The kind and message, as written in a terminal event. */
    public String describe() {
        return kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + ": " + message;
    }
}
