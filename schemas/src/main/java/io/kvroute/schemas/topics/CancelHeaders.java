package io.kvroute.schemas.topics;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Header on the {@code kvroute.cancellations} records the router writes when it places a request
 * again: it says the record is a re-placement marker (it voids older dispatch attempts, it does
 * not cancel the request) without decoding it, so a reader that cannot decode the value (its
 * schema registry is away) still does not take it for a user's cancel. Readers must not rely on
 * it being present: records without it are decoded.
 */
public final class CancelHeaders {
    public static final String KIND = "kvroute.cancel";
    public static final String SUPERSEDE = "supersede";
    private static final byte[] SUPERSEDE_BYTES = SUPERSEDE.getBytes(StandardCharsets.UTF_8);

    private CancelHeaders() {
    }

    /** Marks a record as a re-placement marker. */
    public static Headers markSupersede(Headers headers) {
        return headers.add(KIND, SUPERSEDE_BYTES);
    }

    /** Whether the record says it is a re-placement marker. */
    public static boolean isSupersede(Headers headers) {
        Header header = headers == null ? null : headers.lastHeader(KIND);
        return header != null && Arrays.equals(SUPERSEDE_BYTES, header.value());
    }
}
