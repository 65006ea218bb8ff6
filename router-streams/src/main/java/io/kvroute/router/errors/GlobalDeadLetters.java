package io.kvroute.router.errors;

import io.kvroute.schemas.topics.DeadLetterHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Where the global-store processors (telemetry, KV events) put the records they refuse: they
 * cannot forward to a sink, so they hand each refused record to this, which writes it to the
 * dead-letter topic outside the Streams transaction. A global store is rebuilt by re-reading its
 * topic whenever the router starts, so a refused record still on that (compacted) topic is
 * dead-lettered again then; its source topic, partition and offset headers identify the repeat.
 */
public interface GlobalDeadLetters {

    /** Writes one dead letter: the original key and value, the reason in {@link DeadLetterHeaders}. */
    void send(byte[] key, byte[] value, Headers headers);

    /** The dead letter of {@code record} read from {@code topic}, refused for {@code error}. */
    default void refuse(Record<String, byte[]> record, Optional<RecordMetadata> source, String topic, Throwable error,
                        long nowMs) {
        Headers headers = DeadLetterHeaders.add(new RecordHeaders(record.headers().toArray()),
                source.map(RecordMetadata::topic).orElse(topic), source.map(RecordMetadata::partition).orElse(-1),
                source.map(RecordMetadata::offset).orElse(-1L), error, String.valueOf(error.getMessage()), nowMs);
        send(record.key() == null ? null : record.key().getBytes(StandardCharsets.UTF_8), record.value(), headers);
    }

    /** Drops them (the records are still skipped and counted); for topologies built without a producer. */
    static GlobalDeadLetters none() {
        return (key, value, headers) -> { };
    }
}
