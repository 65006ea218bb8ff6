package io.kvroute.schemas.topics;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Header on the {@code kvroute.decisions} records a router instance writes, naming the instance, so that an instance
 * following its peers' placements skips its own decisions without decoding them (with one instance, every decision
 * it reads back is its own). The record's {@code routerInstance} field stays the authority: records without the
 * header are decoded.
 */
public final class DecisionHeaders {
    public static final String ROUTER_INSTANCE = "kvroute.router.instance";

    private DecisionHeaders() {
    }

    /** The header value naming {@code instance}, encoded once per instance rather than per record. */
    public static byte[] instanceValue(String instance) {
        return instance.getBytes(StandardCharsets.UTF_8);
    }

    /** Adds the instance that wrote the decision. */
    public static Headers markInstance(Headers headers, byte[] instanceValue) {
        return headers.add(ROUTER_INSTANCE, instanceValue);
    }

    /** Whether the record says it was written by the instance {@code instanceValue} names. */
    public static boolean isFrom(Headers headers, byte[] instanceValue) {
        Header header = headers == null ? null : headers.lastHeader(ROUTER_INSTANCE);
        return header != null && Arrays.equals(instanceValue, header.value());
    }
}
