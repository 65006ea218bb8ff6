package io.kvroute.ingress.client;

import io.kvroute.ingress.client.internal.TopicReader;
import io.kvroute.ingress.prompt.PromptHasher;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.v1.CancelRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client a batch pipeline uses: it writes requests to {@code <prefix>.requests} (idempotent,
 * acks=all, key = request id) and, for requests submitted with {@link #submit}, completes a future
 * with the request's one {@link Completion}, optionally streaming its chunks as they come.
 *
 * <p>Responses are read by one background thread started at the first {@code submit}: a
 * {@code read_committed} consumer assigned to every partition of {@code <prefix>.responses},
 * positioned at the end before the first request is sent, feeding a {@link ResponseAssembler}
 * that tracks only this client's pending requests. Futures complete and chunk callbacks run on
 * that thread: keep them short and never block in them. {@link #send} is fire-and-forget (for
 * pipelines that collect results later, see {@link ResponseCollector}); its failures surface at
 * {@link #flush()}. If the same request id is submitted twice (here or elsewhere), the router
 * answers the later submission with a duplicate rejection, which this client logs at WARN and
 * counts ({@link #duplicateRejections()}) but never takes as the request's result. Thread-safe.
 */
public final class KvrouteClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KvrouteClient.class);
    private static final Duration POLL = Duration.ofMillis(100);

    private final ClientConfig config;
    private final Clock clock;
    private final InferenceRequestFactory factory;
    private final Serdes serdes;
    private final KafkaProducer<String, InferenceRequest> producer;
    private final String requestsTopic;
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong sendFailures = new AtomicLong();
    private final AtomicLong duplicateRejections = new AtomicLong();
    private final AtomicReference<Throwable> firstSendFailure = new AtomicReference<>();
    private final Object readerLock = new Object();
    private final Object cancelLock = new Object();
    private KafkaProducer<String, CancelRequest> cancelProducer;
    private volatile boolean closed;
    private TopicReader<ResponseEvent> reader;
    private Thread readerThread;

    public KvrouteClient(ClientConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
        this.factory = new InferenceRequestFactory(new PromptHasher(config.prefixBlockTokens()), config.tenant(),
                config.prefixSalt().orElse(null), clock);
        this.serdes = new Serdes(config.serdeConfig());
        this.requestsTopic = config.requestsTopic();
        this.producer = new KafkaProducer<>(config.producerConfig(), new StringSerializer(),
                Serdes.underSubjectOf(config.topics().requests().name(), serdes.valueSerde(InferenceRequest.class).serializer()));
    }

    public static KvrouteClient create(ClientConfig config) {
        return new KvrouteClient(config, Clock.systemUTC());
    }

    /** The record that {@link #send} would write for this request (a new id each call if none is set). */
    public InferenceRequest prepare(SubmitRequest request) {
        return factory.create(request);
    }

    /** Sends the request and returns a future of its completion. */
    public CompletableFuture<Completion> submit(SubmitRequest request) {
        return submit(request, chunk -> { });
    }

    /** Sends the request; {@code onChunk} sees its chunks in order as they arrive (see {@link ResponseListener}). */
    public CompletableFuture<Completion> submit(SubmitRequest request, Consumer<Chunk> onChunk) {
        return submit(factory.create(request), onChunk);
    }

    /** Sends an already prepared request (see {@link #prepare}) and returns a future of its completion. */
    public CompletableFuture<Completion> submit(InferenceRequest record, Consumer<Chunk> onChunk) {
        ensureOpen();
        startReader();
        String id = record.getRequestId();
        Pending entry = new Pending(new CompletableFuture<>(), onChunk, record.getCustomId());
        if (pending.putIfAbsent(id, entry) != null) {
            throw new IllegalArgumentException("request id " + id + " is already pending on this client");
        }
        try {
            producer.send(new ProducerRecord<>(requestsTopic, id, record), (metadata, error) -> {
                if (error != null) {
                    pending.remove(id);
                    entry.future.completeExceptionally(new SubmitException(1, error));
                }
            });
        } catch (RuntimeException e) {
            // thrown before the record left (serializer, metadata timeout): nothing will answer it
            pending.remove(id);
            entry.future.completeExceptionally(new SubmitException(1, e));
        }
        return entry.future;
    }

    /**
     * Follows a request sent elsewhere (by {@link #send}, or another process): the future completes
     * with its completion if its terminal arrives after this call. Responses already on the topic
     * before the reader started are not seen; use {@link ResponseCollector} for those.
     */
    public CompletableFuture<Completion> watch(String requestId, Consumer<Chunk> onChunk) {
        ensureOpen();
        startReader();
        Pending entry = new Pending(new CompletableFuture<>(), onChunk, null);
        Pending existing = pending.putIfAbsent(requestId, entry);
        return existing != null ? existing.future : entry.future;
    }

    /** Sends every request, waits until all are written, and returns their futures in order. */
    public List<CompletableFuture<Completion>> submitAll(Collection<SubmitRequest> requests) {
        List<CompletableFuture<Completion>> futures = new ArrayList<>(requests.size());
        requests.forEach(r -> futures.add(submit(r)));
        producer.flush();
        return futures;
    }

    /** Sends the request without waiting for its result; returns its id. */
    public String send(SubmitRequest request) {
        return send(factory.create(request));
    }

    /** Sends an already prepared request (see {@link #prepare}); returns its id. */
    public String send(InferenceRequest record) {
        ensureOpen();
        producer.send(new ProducerRecord<>(requestsTopic, record.getRequestId(), record), (metadata, error) -> {
            if (error != null) {
                sendFailures.incrementAndGet();
                firstSendFailure.compareAndSet(null, error);
            }
        });
        return record.getRequestId();
    }

    /** Waits until everything sent is acknowledged; throws {@link SubmitException} if any send failed. */
    public void flush() {
        producer.flush();
        long failed = sendFailures.getAndSet(0);
        Throwable cause = firstSendFailure.getAndSet(null);
        if (failed > 0) {
            throw new SubmitException(failed, cause);
        }
    }

    /**
     * Asks that a request stop: written to {@code <prefix>.cancellations} (acks=all, key = request
     * id) and returned once acknowledged. A request not yet run is not run; a running one is aborted;
     * either way its result is CANCELLED, unless it finished first. Throws {@link SubmitException}
     * if the write fails.
     */
    public void cancel(String requestId, String reason) {
        ensureOpen();
        if (requestId == null || requestId.isBlank()) {
            throw new IllegalArgumentException("request id to cancel must not be blank");
        }
        CancelRequest record = CancelRequest.newBuilder()
                .setRequestId(requestId)
                .setReason(reason)
                .setRequestedAtMs(clock.millis())
                .build();
        try {
            cancelProducer().send(new ProducerRecord<>(config.cancellationsTopic(), requestId, record)).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SubmitException(1, e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new SubmitException(1, e.getCause());
        }
    }

    public int pendingCompletions() {
        return pending.size();
    }

    /**
     * How many times the router rejected a later submission of one of this client's pending request
     * ids as a duplicate (each is logged at WARN). Those rejections complete nothing: the pending
     * request's future still completes with its own result.
     */
    public long duplicateRejections() {
        return duplicateRejections.get();
    }

    public ClientConfig config() {
        return config;
    }

    @Override
    public void close() {
        closed = true;
        try {
            producer.close(Duration.ofSeconds(10));
            synchronized (cancelLock) {
                if (cancelProducer != null) {
                    cancelProducer.close(Duration.ofSeconds(10));
                }
            }
        } finally {
            stopReader();
            IllegalStateException reason = new IllegalStateException("kvroute client closed before the request completed");
            pending.values().forEach(p -> p.future.completeExceptionally(reason));
            pending.clear();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("kvroute client is closed");
        }
    }

    private KafkaProducer<String, CancelRequest> cancelProducer() {
        synchronized (cancelLock) {
            if (cancelProducer == null) {
                Map<String, Object> producerConfig = config.producerConfig();
                producerConfig.put("client.id", producerConfig.get("client.id") + "-cancel");
                cancelProducer = new KafkaProducer<>(producerConfig, new StringSerializer(),
                        Serdes.underSubjectOf(config.topics().cancellations().name(), serdes.valueSerde(CancelRequest.class).serializer()));
            }
            return cancelProducer;
        }
    }

    private void startReader() {
        synchronized (readerLock) {
            if (readerThread != null) {
                return;
            }
            CountDownLatch positioned = new CountDownLatch(1);
            AtomicReference<RuntimeException> failure = new AtomicReference<>();
            reader = new TopicReader<>(config.readerConfig("responses"), config.responsesTopic(),
                    serdes.valueSerde(ResponseEvent.class).deserializer());
            readerThread = new Thread(() -> readResponses(positioned, failure), config.clientId() + "-responses");
            readerThread.setDaemon(true);
            readerThread.start();
            try {
                positioned.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting the response reader", e);
            }
            if (failure.get() != null) {
                readerThread = null;
                throw failure.get();
            }
        }
    }

    private void readResponses(CountDownLatch positioned, AtomicReference<RuntimeException> failure) {
        ResponseAssembler assembler = new ResponseAssembler(new Dispatch(), pending::containsKey,
                config.chunkGraceMs(), ResponseAssembler.DEFAULT_FINISHED_MEMORY);
        try (TopicReader<ResponseEvent> r = reader) {
            try {
                r.openAll(StartPosition.END);
            } catch (RuntimeException e) {
                failure.set(e);
                return;
            } finally {
                positioned.countDown();
            }
            while (!closed) {
                r.poll(POLL, (record, event) -> assembler.accept(event, clock.millis()));
                assembler.expire(clock.millis());
            }
        } catch (WakeupException e) {
            if (!closed) {
                LOG.error("response reader woken up unexpectedly", e);
            }
        } catch (RuntimeException e) {
            LOG.error("response reader stopped; pending requests will not complete", e);
            pending.values().forEach(p -> p.future.completeExceptionally(e));
        }
    }

    private void stopReader() {
        synchronized (readerLock) {
            if (readerThread == null) {
                return;
            }
            reader.wakeup();
            try {
                readerThread.join(Duration.ofSeconds(10).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private final class Dispatch implements ResponseListener {
        @Override
        public void onChunk(Chunk chunk) {
            Pending p = pending.get(chunk.requestId());
            if (p != null) {
                try {
                    p.onChunk.accept(chunk);
                } catch (RuntimeException e) {
                    LOG.warn("chunk callback of request {} failed: {}", chunk.requestId(), e.toString());
                }
            }
        }

        @Override
        public void onDuplicateRejected(DuplicateRejection rejection) {
            duplicateRejections.incrementAndGet();
            LOG.warn("request id {} was submitted again; the router rejected the later submission as a duplicate, the first"
                    + " request is unaffected and its result is still awaited", rejection.requestId());
        }

        @Override
        public void onCompletion(Completion completion) {
            Pending p = pending.remove(completion.requestId());
            if (p != null) {
                p.future.complete(completion.customId() == null && p.customId != null ? completion.withCustomId(p.customId) : completion);
            }
        }
    }

    private record Pending(CompletableFuture<Completion> future, Consumer<Chunk> onChunk, String customId) {
    }
}
