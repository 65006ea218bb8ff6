package io.kvroute.schemas.topics;

/**
 * Header on {@code kvroute.responses} records that says what an event is without decoding it, so
 * a reader that only wants terminal events (the router's result tracker) can skip the many token
 * chunks cheaply. Readers must not rely on it being present: events without it are decoded.
 */
public final class ResponseHeaders {
    public static final String EVENT = "kvroute.event";
    public static final String CHUNK = "chunk";

    private ResponseHeaders() {
    }
}
