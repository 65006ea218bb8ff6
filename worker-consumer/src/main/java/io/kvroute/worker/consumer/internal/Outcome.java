package io.kvroute.worker.consumer.internal;

import io.kvroute.schemas.v1.ResponseEvent;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The end of one dispatch record, waiting for the poll thread to commit it in a transaction: a
 * terminal response or a hand-back (serialized on the poll thread, so a failure there is retried
 * with the transaction) or a dead letter, and where the record came from.
 *
 * @param source     the dispatch partition
 * @param offset     the dispatch record's offset
 * @param epoch      the assignment epoch of {@code source} when the record was read; a result of an
 *                   older epoch belongs to a revoked assignment and is dropped
 * @param terminal   the response event that ends the run (a terminal, or a hand-back), or null for a dead letter
 *                   or a superseded run
 * @param deadLetter the dead-letter record, or null for a terminal response
 * @param lastChunk  the send of the request's last token chunk, to be acknowledged before the
 *                   terminal event is written; null if there were no chunks
 * @param kind       what ended the record, for metrics
 * @param ttftMs     the request's TTFT, or -1
 */
public record Outcome(TopicPartition source, long offset, long epoch, ResponseEvent terminal,
                      ProducerRecord<byte[], byte[]> deadLetter, Future<RecordMetadata> lastChunk, Kind kind, long ttftMs) {

    /** What ended a dispatch record. */
    public enum Kind { COMPLETED, FAILED, REJECTED, EXPIRED, CANCELLED, DEAD_LETTER, SUPERSEDED, HANDED_BACK }

    public static Outcome terminal(TopicPartition source, long offset, long epoch, ResponseEvent terminal,
                                   Future<RecordMetadata> lastChunk, Kind kind, long ttftMs) {
        return new Outcome(source, offset, epoch, terminal, null, lastChunk, kind, ttftMs);
    }

    public static Outcome deadLetter(TopicPartition source, long offset, long epoch, ProducerRecord<byte[], byte[]> record) {
        return new Outcome(source, offset, epoch, null, record, null, Kind.DEAD_LETTER, -1);
    }

    /**
     * The end of a run the router re-placed (a newer dispatch attempt exists): the record is done
     * here, but no result is written, as the new attempt writes it.
     */
    public static Outcome superseded(TopicPartition source, long offset, long epoch) {
        return new Outcome(source, offset, epoch, null, null, null, Kind.SUPERSEDED, -1);
    }

    /** The record to write in the transaction, or null when there is none (a superseded run). */
    public ProducerRecord<byte[], byte[]> toRecord(String responsesTopic, Serializer<ResponseEvent> serializer) {
        if (deadLetter != null) {
            return deadLetter;
        }
        if (terminal == null) {
            return null;
        }
        return new ProducerRecord<>(responsesTopic, terminal.getRequestId().getBytes(StandardCharsets.UTF_8),
                serializer.serialize(responsesTopic, terminal));
    }
}
