package io.kvroute.worker.consumer.internal;

import io.kvroute.schemas.topics.RunAttempt;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.worker.engine.EngineFailure;
import io.kvroute.worker.engine.EngineListener;
import io.kvroute.worker.engine.EngineUsage;
import java.util.concurrent.Future;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Listens to one request in the engine: gathers tokens into chunks of {@code chunkTokens}, sends
 * each chunk at once (numbered 0, 1, 2...), and at the end hands a terminal event numbered after
 * the last chunk to the poll thread, which writes it in a transaction with the offset commit.
 * Runs on the engine's thread, except {@link #cancel}, which the poll thread calls; whichever ends
 * the run first writes its one terminal event, and later calls are ignored.
 */
public final class RequestRun implements EngineListener {

    /** Sends a chunk event keyed by request id and returns the send. */
    public interface ChunkSender extends BiFunction<String, ResponseEvent, Future<RecordMetadata>> {
    }

    /** Decides, on the engine's thread, whether a transient failure is retried (true: it will be, later). */
    public interface Retrier {
        Retrier NEVER = (run, failure) -> false;

        boolean retry(RequestRun run, EngineFailure failure);
    }

    /** Observes a run's progress for metrics. */
    public interface Observer {
        void tokens(int count);
    }

    private final ResponseEvents events;
    private final TopicPartition source;
    private final long offset;
    private final long epoch;
    private final int chunkTokens;
    private final ChunkSender chunks;
    private final Consumer<Outcome> outcomes;
    private final Observer observer;
    private final LongSupplier clock;
    private final Retrier retrier;
    private final StringBuilder pendingText = new StringBuilder();
    private int pendingTokens;
    private int tokensSoFar;
    private int nextSequence;
    private Future<RecordMetadata> lastChunk;
    private boolean ended;

    public RequestRun(ResponseEvents events, TopicPartition source, long offset, long epoch, int chunkTokens, ChunkSender chunks,
                      Consumer<Outcome> outcomes, Observer observer, LongSupplier clock) {
        this(events, source, offset, epoch, chunkTokens, chunks, outcomes, observer, clock, Retrier.NEVER);
    }

    public RequestRun(ResponseEvents events, TopicPartition source, long offset, long epoch, int chunkTokens, ChunkSender chunks,
                      Consumer<Outcome> outcomes, Observer observer, LongSupplier clock, Retrier retrier) {
        this.retrier = retrier;
        this.events = events;
        this.source = source;
        this.offset = offset;
        this.epoch = epoch;
        this.chunkTokens = chunkTokens;
        this.chunks = chunks;
        this.outcomes = outcomes;
        this.observer = observer;
        this.clock = clock;
    }

    @Override
    public void onFirstToken(long ttftMs) {
        // TTFT is reported with the terminal event
    }

    @Override
    public synchronized void onTokens(String textDelta, int count) {
        if (ended) {
            return;
        }
        pendingText.append(textDelta);
        pendingTokens += count;
        tokensSoFar += count;
        observer.tokens(count);
        if (pendingTokens >= chunkTokens) {
            flushChunk();
        }
    }

    @Override
    public synchronized void onFinished(String finishReason, EngineUsage usage, long ttftMs) {
        if (ended) {
            return;
        }
        try {
            flushChunk();
        } catch (RuntimeException e) {
            end(events.failed(nextSequence, "token chunk could not be sent: " + e.getMessage(), usage, clock.getAsLong()),
                    Outcome.Kind.FAILED, -1);
            throw e;
        }
        end(events.completed(nextSequence, finishReason, usage, ttftMs, clock.getAsLong()), Outcome.Kind.COMPLETED, ttftMs);
    }

    /**
     * A rejection ends the request REJECTED (the router does not retry it); a rate limit hands the
     * run back to the router, which places the request on another pool; every other failure the
     * worker does not retry ends it FAILED.
     */
    @Override
    public synchronized void onFailure(EngineFailure failure) {
        if (failure.retryable() && !ended && retrier.retry(this, failure)) {
            // this try ends without a result; the next try (same attempt, retry + 1) outranks its chunks
            ended = true;
            return;
        }
        if (failure.kind() == EngineFailure.Kind.RATE_LIMITED) {
            handBack(failure.describe());
            return;
        }
        if (failure.retryable()) {
            onFailed(failure.describe());
            return;
        }
        if (ended) {
            return;
        }
        try {
            flushChunk();
        } catch (RuntimeException e) {
            // the request ends rejected either way
        }
        end(events.rejected(nextSequence, failure.message(), new EngineUsage(0, tokensSoFar, 0), clock.getAsLong()),
                Outcome.Kind.REJECTED, -1);
    }

    @Override
    public synchronized void onFailed(String error) {
        if (ended) {
            return;
        }
        try {
            flushChunk();
        } catch (RuntimeException e) {
            error = error + "; token chunk could not be sent: " + e.getMessage();
        }
        end(events.failed(nextSequence, error, new EngineUsage(0, tokensSoFar, 0), clock.getAsLong()), Outcome.Kind.FAILED, -1);
    }

    /**
     * Ends the run without a result, handing the request back to the router (the tokens streamed
     * so far stay with this attempt, which the next one outranks), unless it has already ended.
     */
    private void handBack(String reason) {
        if (ended) {
            return;
        }
        end(events.handedBack(nextSequence, reason, clock.getAsLong()), Outcome.Kind.HANDED_BACK, -1);
    }

    /**
     * Ends the run CANCELLED with the tokens streamed so far (pending ones are sent first) unless
     * it has already ended; the caller stops the request in the engine. True if this call ended it.
     */
    public synchronized boolean cancel(String reason) {
        if (ended) {
            return false;
        }
        try {
            flushChunk();
        } catch (RuntimeException e) {
            reason = reason + "; token chunk could not be sent: " + e.getMessage();
        }
        end(events.cancelled(nextSequence, reason, new EngineUsage(0, tokensSoFar, 0), clock.getAsLong()), Outcome.Kind.CANCELLED, -1);
        return true;
    }

    /**
     * Ends the run without a result because the router placed the request again (a newer attempt
     * writes the result); tokens not yet sent are dropped. True if this call ended it.
     */
    public synchronized boolean supersede() {
        if (ended) {
            return false;
        }
        ended = true;
        outcomes.accept(Outcome.superseded(source, offset, epoch));
        return true;
    }

    public ResponseEvents events() {
        return events;
    }

    public TopicPartition source() {
        return source;
    }

    public long offset() {
        return offset;
    }

    public long epoch() {
        return epoch;
    }

    /** The dispatch attempt this run belongs to (the high bits of its run attempt). */
    public int dispatchAttempt() {
        return RunAttempt.dispatchAttemptOf(events.attempt());
    }

    /** Sends the pending tokens as the next chunk; if sending throws, they stay pending for the next try. */
    private void flushChunk() {
        if (pendingTokens == 0) {
            return;
        }
        lastChunk = chunks.apply(events.requestId(), events.chunk(nextSequence, pendingText.toString(), clock.getAsLong()));
        nextSequence++;
        pendingText.setLength(0);
        pendingTokens = 0;
    }

    private void end(ResponseEvent terminal, Outcome.Kind kind, long ttftMs) {
        ended = true;
        outcomes.accept(Outcome.terminal(source, offset, epoch, terminal, lastChunk, kind, ttftMs));
    }
}
