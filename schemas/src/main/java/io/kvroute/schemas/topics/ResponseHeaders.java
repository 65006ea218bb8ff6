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

    /** The tenant a router's answer is for: with topics per tenant, it picks the tenant's responses topic. */
    public static final String TENANT = "kvroute.tenant";

    /** Names the tenant of an answer (nothing for an unknown tenant). */
    public static Headers withTenant(Headers headers, String tenant) {
        return tenant == null || tenant.isEmpty() ? headers : headers.add(TENANT, tenant.getBytes(StandardCharsets.UTF_8));
    }

    /** The tenant a record names, or null. */
    public static String tenant(Headers headers) {
        Header header = headers == null ? null : headers.lastHeader(TENANT);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    /** Whether the record says it is a token chunk. */
    public static boolean isChunk(Headers headers) {
        Header header = headers == null ? null : headers.lastHeader(EVENT);
        return header != null && Arrays.equals(CHUNK_BYTES, header.value());
    }
}
