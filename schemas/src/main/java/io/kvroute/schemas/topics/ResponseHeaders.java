package io.kvroute.schemas.topics;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Header on {@code kvroute.responses} records that says what an event is without decoding it, so
 * a reader that only wants terminal events (the router's result tracker) can skip the many token
 * chunks cheaply. Readers must not rely on it being present: events without it are decoded.
 */
public final class ResponseHeaders {
    public static final String EVENT = "kvroute.event";
    public static final String CHUNK = "chunk";
    private static final byte[] CHUNK_BYTES = CHUNK.getBytes(StandardCharsets.UTF_8);

    private ResponseHeaders() {
    }

    /** Marks a record as a token chunk. */
    public static Headers markChunk(Headers headers) {
        return headers.add(EVENT, CHUNK_BYTES);
    }

    /** Whether the record says it is a token chunk. */
    public static boolean isChunk(Headers headers) {
        Header header = headers == null ? null : headers.lastHeader(EVENT);
        return header != null && Arrays.equals(CHUNK_BYTES, header.value());
    }
}
