package io.kvroute.schemas.topics;

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
}
