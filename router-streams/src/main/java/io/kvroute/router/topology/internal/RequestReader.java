package io.kvroute.router.topology.internal;

import io.kvroute.schemas.v1.InferenceRequest;

/**
 * Reads a request record back from where it was consumed, for a request the router places again
 * after its in-flight entry was kept without the prompt ({@link InFlightEntries}).
 */
public interface RequestReader {
    /** A router that cannot read requests back: its in-flight entries keep whole requests. */
    RequestReader NONE = (source, requestId) -> {
        throw new UnreadableRequestException("this router reads no request back");
    };

    /**
     * The request record at {@code source}, which must be {@code requestId}'s.
     *
     * @throws UnreadableRequestException when it cannot be read (gone with the topic's retention, unreachable, another id)
     */
    InferenceRequest read(RequestSource source, String requestId);

    default boolean readsBack() {
        return this != NONE;
    }

    /** Why a request record could not be read back. */
    final class UnreadableRequestException extends RuntimeException {
        public UnreadableRequestException(String message) {
            super(message);
        }

        public UnreadableRequestException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
