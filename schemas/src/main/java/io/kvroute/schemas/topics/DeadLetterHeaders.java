package io.kvroute.schemas.topics;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;

/**
 * Header names on dead-letter records. The record's key and value are the original bytes; these
 * headers say where it came from and why it was refused.
 */
public final class DeadLetterHeaders {
    public static final String SOURCE_TOPIC = "kvroute.dlq.source.topic";
    public static final String SOURCE_PARTITION = "kvroute.dlq.source.partition";
    public static final String SOURCE_OFFSET = "kvroute.dlq.source.offset";
    public static final String ERROR_CLASS = "kvroute.dlq.error.class";
    public static final String ERROR_MESSAGE = "kvroute.dlq.error.message";
    public static final String FAILED_AT_MS = "kvroute.dlq.failed.at.ms";

    private DeadLetterHeaders() {
    }

    /** Adds the reason headers to {@code headers} (which may already carry the original record's). */
    public static Headers add(Headers headers, String sourceTopic, int sourcePartition, long sourceOffset, Throwable error,
                              String message, long failedAtMs) {
        return headers.add(SOURCE_TOPIC, utf8(sourceTopic))
                .add(SOURCE_PARTITION, utf8(Integer.toString(sourcePartition)))
                .add(SOURCE_OFFSET, utf8(Long.toString(sourceOffset)))
                .add(ERROR_CLASS, utf8(error.getClass().getName()))
                .add(ERROR_MESSAGE, utf8(message))
                .add(FAILED_AT_MS, utf8(Long.toString(failedAtMs)));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
