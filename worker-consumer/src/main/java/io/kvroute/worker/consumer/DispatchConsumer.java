package io.kvroute.worker.consumer;

import io.kvroute.schemas.registry.SchemaRegistryException;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.DeadLetterHeaders;
import io.kvroute.schemas.topics.ResponseHeaders;
import io.kvroute.schemas.topics.RunAttempt;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.topics.TenantTopics;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.SamplingParams;
import io.kvroute.worker.config.WorkerConfig;
import io.kvroute.worker.consumer.internal.FinishedOffsetsCodec;
import io.kvroute.worker.consumer.internal.Outcome;
import io.kvroute.worker.consumer.internal.PartitionProgress;
import io.kvroute.worker.consumer.internal.RecentlyCancelled;
import io.kvroute.worker.consumer.internal.SupersededAttempts;
import io.kvroute.worker.consumer.internal.RequestRun;
import io.kvroute.worker.consumer.internal.ResponseEvents;
import io.kvroute.worker.consumer.internal.RetryBackoff;
import io.kvroute.worker.engine.EnginePrompt;
import io.kvroute.worker.engine.EngineRequest;
import io.kvroute.worker.engine.EngineUsage;
import io.kvroute.worker.engine.GpuSlots;
import io.kvroute.worker.engine.InferenceEngine;
import io.kvroute.worker.metrics.WorkerMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Iterator;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's consume → infer → respond loop on its region's dispatch topic. The poll thread
 * reads dispatch records and submits them to the engine; the engine's thread streams token
 * chunks through a plain idempotent producer and queues each request's terminal event; the poll
 * thread writes queued terminal events (and dead letters) in one transaction per loop together
 * with the consumer offsets ({@code sendOffsetsToTransaction} with the group metadata, so a
 * worker that lost its partitions is fenced). Requests finish out of order, so per partition the
 * lowest unfinished offset is committed with the finished offsets above it in the metadata
 * ({@link PartitionProgress}). Every consumer call stays on the poll thread. Partitions are
 * paused while the engine queue is above its bound, so the consumer keeps polling and stays in
 * its group.
 *
 * <p>Cancels arrive from another thread through {@link #cancel(String)}: the id joins a bounded
 * set of recently cancelled ids (a dispatch record read later is answered CANCELLED without
 * running) and is queued for the poll thread, which ends a run of that request on this worker
 * CANCELLED (tokens so far, finish reason "cancelled") and stops it in the engine. The CANCELLED
 * terminal goes through the same transaction as every other, and a run that finished first keeps
 * its own terminal: one terminal per request either way.
 *
 * <p>Re-placements arrive the same way through {@link #supersede(String, int)}: the router placed
 * the request again elsewhere because this region was silent, so runs of older dispatch attempts
 * are void. A void record is not started, and a void run is stopped in the engine; either way the
 * record is committed as done with no result (the new attempt writes it). Re-placement only
 * happens to records that waited in a silent region, so before starting a record that has waited
 * longer than {@code worker.replacement.check.after.ms}, or committing after the loop itself was
 * frozen or unable to commit for that long (a stopped process, a network partition), the loop
 * waits until the cancellations follower has read everything written before that moment
 * ({@link CancellationView}).
 */
public final class DispatchConsumer implements Runnable, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DispatchConsumer.class);
    /**
     * A partition is paused while its watermark-to-highest-offset span reaches this; one more poll
     * can add at most {@link WorkerConfig#MAX_POLL_RECORDS_LIMIT}, and the sum keeps the commit
     * metadata under Kafka's limit.
     */
    public static final int MAX_TRACKED_SPAN = FinishedOffsetsCodec.MAX_SPAN_FOR_LIMIT - WorkerConfig.MAX_POLL_RECORDS_LIMIT;
    static final Duration POLL_TIMEOUT = Duration.ofMillis(20);
    /** Longest a commit waits for chunk acks; well under the transaction timeout, as no transaction is open yet. */
    static final long CHUNK_ACK_WAIT_MS = 200;
    /** Before partitions are given up the results must go now: wait longer. */
    static final long FORCED_CHUNK_ACK_WAIT_MS = 5_000;
    static final int COMMIT_ATTEMPTS = 3;
    /** Longest the loop waits for the cancellations follower to catch up before going on without it. */
    static final Duration CANCELLATION_CATCH_UP_WAIT = Duration.ofSeconds(2);

    private final WorkerConfig config;
    private final String dispatchTopic;
    private final String responsesTopic;
    /** Each tenant's responses topic name, worked out once: {@link #responsesTopicOf} runs for every token chunk. */
    private final Map<String, String> responsesTopics = new ConcurrentHashMap<>();
    /** Response events serialized under the responses topic's schema subject, whatever (tenant's) topic they go to. */
    private final Serializer<ResponseEvent> responseSerializer;
    private final String deadLetterTopic;
    private final Consumer<byte[], byte[]> consumer;
    private final Producer<String, byte[]> chunkProducer;
    private final Producer<byte[], byte[]> txProducer;
    private final GpuSlots slots;
    private final Serde<DispatchedRequest> dispatchSerde;
    private final Serde<ResponseEvent> responseSerde;
    private final WorkerMetrics metrics;
    private final LongSupplier clock;
    private final RetryBackoff retryBackoff;
    private final ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
    /** Cancels to apply on the poll thread, as {@link CancelKey}s. */
    private final ConcurrentLinkedQueue<String> cancels = new ConcurrentLinkedQueue<>();
    private final RecentlyCancelled recentlyCancelled = new RecentlyCancelled(RecentlyCancelled.DEFAULT_CAPACITY);
    private final SupersededAttempts superseded = new SupersededAttempts(SupersededAttempts.DEFAULT_CAPACITY);
    private final ConcurrentLinkedQueue<String> supersedes = new ConcurrentLinkedQueue<>();
    private volatile CancellationView cancellationView = CancellationView.NONE;
    private final ConcurrentLinkedQueue<PendingRetry> retries = new ConcurrentLinkedQueue<>();
    private final List<PendingRetry> waitingRetries = new ArrayList<>();
    private final List<Outcome> retrying = new ArrayList<>();
    private final Map<TopicPartition, Owned> owned = new HashMap<>();
    private final Set<TopicPartition> dirty = new HashSet<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean closing;
    private volatile List<Integer> ownedPartitions = List.of();
    private volatile Throwable failure;
    private long epochs;
    private long lastCommitMs;
    private long lastLoopMs;
    private long lastCommitOkMs;
    private boolean engineOverloaded;

    public DispatchConsumer(WorkerConfig config, Consumer<byte[], byte[]> consumer, Producer<String, byte[]> chunkProducer,
                            Producer<byte[], byte[]> txProducer, InferenceEngine engine,
                            Serde<DispatchedRequest> dispatchSerde, Serde<ResponseEvent> responseSerde,
                            WorkerMetrics metrics, LongSupplier clock) {
        this(config, consumer, chunkProducer, txProducer, GpuSlots.single(config.workerId(), engine), dispatchSerde, responseSerde,
                metrics, clock);
    }

    /** A worker process serving several GPU slots from its dispatch partitions ({@link GpuSlots}). */
    public DispatchConsumer(WorkerConfig config, Consumer<byte[], byte[]> consumer, Producer<String, byte[]> chunkProducer,
                            Producer<byte[], byte[]> txProducer, GpuSlots slots,
                            Serde<DispatchedRequest> dispatchSerde, Serde<ResponseEvent> responseSerde,
                            WorkerMetrics metrics, LongSupplier clock) {
        this.config = config;
        KvrouteTopics topics = config.topics();
        this.dispatchTopic = topics.dispatchTopic(config.region());
        this.responsesTopic = topics.responses().name();
        this.responseSerializer = Serdes.underSubjectOf(responsesTopic, responseSerde.serializer());
        this.deadLetterTopic = topics.deadLetters().name();
        this.consumer = consumer;
        this.chunkProducer = chunkProducer;
        this.txProducer = txProducer;
        this.slots = slots;
        this.dispatchSerde = dispatchSerde;
        this.responseSerde = responseSerde;
        this.metrics = metrics;
        this.clock = clock;
        this.retryBackoff = new RetryBackoff(config.retryMax(), config.retryBackoffMs());
    }

    /** Partitions of the dispatch topic this worker owns now (read from any thread). */
    public List<Integer> ownedPartitions() {
        return ownedPartitions;
    }

    /** Why the loop stopped on its own, or null. */
    public Throwable failure() {
        return failure;
    }

    /**
     * Cancels a request, from any thread: it will not start on this worker, and if it runs here now
     * it is stopped and answered CANCELLED by the poll thread.
     */
    public void cancel(String requestId) {
        cancel(requestId, null);
    }

    /**
     * As {@link #cancel(String)}, for a cancel of {@code tenant}'s request only (null: whoever's): with topics per tenant
     * the router stamps each tenant's cancels so, and a request of another tenant with that id goes on.
     */
    public void cancel(String requestId, String tenant) {
        String key = CancelKey.of(requestId, tenant);
        recentlyCancelled.add(key);
        cancels.add(key);
    }

    /** Whether a cancel received recently stops a request of {@code tenant}: one of any tenant, or of that tenant. */
    private boolean cancelledRecently(String requestId, String tenant) {
        return recentlyCancelled.contains(requestId) || tenant != null && recentlyCancelled.contains(CancelKey.of(requestId, tenant));
    }

    /**
     * Voids dispatch attempts of {@code requestId} below {@code belowAttempt}, from any thread: the
     * router placed the request again. Such a record is not started here, and such a run is stopped
     * without a result by the poll thread.
     */
    public void supersede(String requestId, int belowAttempt) {
        superseded.add(requestId, belowAttempt);
        supersedes.add(requestId);
    }

    /** How this loop learns that the cancellations follower is up to date; set before {@link #run()}. */
    public void cancellationView(CancellationView view) {
        this.cancellationView = view;
    }

    /** True if a cancel of this request was received recently (the last {@value RecentlyCancelled#DEFAULT_CAPACITY} kept). */
    public boolean isCancelled(String requestId) {
        return recentlyCancelled.contains(requestId);
    }

    public boolean isRunning() {
        return stopped.getCount() > 0;
    }

    /** Blocks until the loop has stopped, by {@link #close()} or on its own. */
    public void awaitStopped() throws InterruptedException {
        stopped.await();
    }

    @Override
    public void run() {
        try {
            txProducer.initTransactions();
            consumer.subscribe(List.of(dispatchTopic), new Rebalance());
            lastLoopMs = clock.getAsLong();
            lastCommitOkMs = lastLoopMs;
            while (!closing) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL_TIMEOUT);
                if (!records.isEmpty() && anyWaitedLong(records)) {
                    awaitCancellationsUpToNow();
                }
                for (TopicPartition tp : records.partitions()) {
                    handle(tp, records.records(tp));
                }
                applyCancels();
                applySupersedes();
                startDueRetries();
                commitIfDue(false);
                applyBackPressure();
                lastLoopMs = clock.getAsLong();
            }
        } catch (WakeupException e) {
            if (!closing) {
                failure = e;
                LOG.error("dispatch consumer woken up unexpectedly", e);
            }
        } catch (RuntimeException e) {
            failure = e;
            // a rebalance listener's error arrives wrapped: the whole chain says what happened and what to do
            StringBuilder chain = new StringBuilder(e.toString());
            for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
                chain.append("; caused by ").append(cause);
            }
            LOG.error("dispatch consumer of worker {} stopped: {}", config.workerId(), chain, e);
        } finally {
            shutDown();
        }
    }

    /** Stops the loop: commits what is finished, abandons the rest to the next owner, leaves the group. */
    @Override
    public void close() {
        closing = true;
        consumer.wakeup();
        try {
            if (!stopped.await(30, TimeUnit.SECONDS)) {
                LOG.warn("dispatch consumer of worker {} did not stop within 30 s", config.workerId());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void shutDown() {
        try {
            if (failure == null) {
                commitIfDue(true);
            }
        } catch (RuntimeException e) {
            LOG.warn("final commit of worker {} failed: {}", config.workerId(), e.toString());
        }
        owned.values().forEach(o -> o.runs.keySet().forEach(slots::cancel));
        owned.clear();
        ownedPartitions = List.of();
        try {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)).withGroupMembershipOperation(GroupMembershipOperation.LEAVE_GROUP));
        } catch (RuntimeException e) {
            LOG.warn("closing the consumer of worker {} failed: {}", config.workerId(), e.toString());
        }
        try {
            txProducer.close(Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            LOG.warn("closing the transactional producer of worker {} failed: {}", config.workerId(), e.toString());
        }
        stopped.countDown();
    }

    private void handle(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> records) {
        Owned partition = owned.get(tp);
        if (partition == null) {
            return;
        }
        for (ConsumerRecord<byte[], byte[]> record : records) {
            long offset = record.offset();
            if (partition.progress.isFinished(offset)) {
                partition.progress.finished(offset);
                dirty.add(tp);
                continue;
            }
            DispatchedRequest dispatched;
            try {
                dispatched = dispatchSerde.deserializer().deserialize(record.topic(), record.value());
                if (dispatched == null) {
                    throw new SerializationException("dispatch record has no value");
                }
            } catch (SerializationException e) {
                if (SchemaRegistryException.isOutage(e)) {
                    LOG.warn("schema registry unavailable reading {}@{}; retrying: {}", tp, offset, e.getMessage());
                    consumer.seek(tp, offset);
                    return;
                }
                partition.progress.started(offset);
                outcomes.add(deadLetter(record, partition.epoch, e));
                continue;
            }
            partition.progress.started(offset);
            try {
                start(tp, partition, offset, dispatched);
            } catch (RuntimeException e) {
                LOG.warn("request at {}@{} could not be started: {}", tp, offset, e.toString());
                InferenceRequest request = dispatched.getRequest();
                ResponseEvents events = new ResponseEvents(request.getRequestId(), request.getCustomId(), runAttempt(dispatched),
                        slots.slotFor(dispatched.getWorkerId()).workerId(), config.region()).of(request.getTenant(), request.getModel());
                outcomes.add(Outcome.terminal(tp, offset, partition.epoch,
                        events.failed(0, "worker could not start the request: " + e.getMessage(), new EngineUsage(0, 0, 0), clock.getAsLong()),
                        null, Outcome.Kind.FAILED, -1));
            }
        }
    }

    /** Called on the poll thread only: the group generation comes from the consumer. */
    private int runAttempt(DispatchedRequest dispatched) {
        return RunAttempt.of(Math.max(1, dispatched.getAttempt()), consumer.groupMetadata().generationId());
    }

    private void start(TopicPartition tp, Owned partition, long offset, DispatchedRequest dispatched) {
        InferenceRequest request = dispatched.getRequest();
        int attempt = runAttempt(dispatched);
        GpuSlots.Slot slot = slots.slotFor(dispatched.getWorkerId());
        ResponseEvents events = new ResponseEvents(request.getRequestId(), request.getCustomId(), attempt,
                slot.workerId(), config.region()).of(request.getTenant(), request.getModel());
        long now = clock.getAsLong();
        if (superseded.isVoid(request.getRequestId(), Math.max(1, dispatched.getAttempt()))) {
            LOG.info("request {} attempt {} was placed again elsewhere; not running it on worker {}", request.getRequestId(),
                    dispatched.getAttempt(), config.workerId());
            outcomes.add(Outcome.superseded(tp, offset, partition.epoch));
            return;
        }
        if (request.getDeadlineMs() != null && request.getDeadlineMs() < now) {
            outcomes.add(Outcome.terminal(tp, offset, partition.epoch, events.expired(now), null, Outcome.Kind.EXPIRED, -1));
            return;
        }
        if (cancelledRecently(request.getRequestId(), request.getTenant())) {
            LOG.info("request {} was cancelled before it started on worker {}", request.getRequestId(), config.workerId());
            outcomes.add(Outcome.terminal(tp, offset, partition.epoch,
                    events.cancelled(0, "cancelled before it started", new EngineUsage(0, 0, 0), now), null, Outcome.Kind.CANCELLED, -1));
            return;
        }
        if (owned.values().stream().anyMatch(p -> p.runs.containsKey(request.getRequestId()))) {
            // the engine keys runs by request id and attempt: a second run would orphan the first
            outcomes.add(Outcome.terminal(tp, offset, partition.epoch,
                    events.failed(0, "request id " + request.getRequestId() + " is already running on this worker",
                            new EngineUsage(0, 0, 0), now), null, Outcome.Kind.FAILED, -1));
            return;
        }
        EngineRequest engineRequest = new EngineRequest(request.getRequestId(), attempt,
                promptTokens(request), Math.max(1, request.getMaxTokens()),
                request.getPrefixBlockHashes().stream().mapToLong(Long::longValue).toArray(),
                request.getPrefixBlockTokens() > 0 ? request.getPrefixBlockTokens() : EngineRequest.DEFAULT_BLOCK_TOKENS,
                now, prompt(request));
        RequestRun run = new RequestRun(events, tp, offset, partition.epoch, config.chunkTokens(), this::sendChunk,
                outcomes::add, metrics::tokens, clock, retrierFor(engineRequest, slot.engine(), request.getDeadlineMs()));
        partition.runs.put(request.getRequestId(), run);
        slot.engine().submit(engineRequest, run);
    }

    /** Ends the runs of cancelled requests on this worker, queued or running in the engine. */
    private void applyCancels() {
        for (String key; (key = cancels.poll()) != null; ) {
            String requestId = CancelKey.requestId(key);
            String tenant = CancelKey.tenant(key);
            for (Owned partition : owned.values()) {
                RequestRun run = partition.runs.get(requestId);
                if (run == null || tenant != null && !tenant.equals(run.events().tenant())) {
                    continue; // not here, or another tenant's request of that id
                }
                slots.cancel(requestId);
                if (run.cancel("cancelled while running on worker " + config.workerId())) {
                    LOG.info("request {} cancelled on worker {}", requestId, config.workerId());
                }
            }
        }
    }

    /** A try that failed transiently, to be run again on this worker once {@code dueMs} has passed. */
    private record PendingRetry(RequestRun failed, EngineRequest request, InferenceEngine engine, Long deadlineMs, long dueMs) {
    }

    /**
     * Queues a retry on this worker of a try that failed with a kind {@link RetryBackoff} retries
     * (refused connection, 5xx, broken stream, timeout, or an engine failure such as a request that
     * could not be sent; never a 429 or a rejection), at most {@code worker.retry.max} times with
     * doubling backoff, and not when the retry would be due at or after the request's deadline.
     */
    private RequestRun.Retrier retrierFor(EngineRequest request, InferenceEngine engine, Long deadlineMs) {
        return (run, failure) -> {
            int tries = run.events().retry();
            OptionalLong due = retryBackoff.nextTryDueMs(tries, failure.kind(), clock.getAsLong(), deadlineMs);
            if (due.isEmpty()) {
                return false;
            }
            long dueMs = due.getAsLong();
            LOG.info("request {} try {} failed on worker {} ({}); retrying in {} ms", run.events().requestId(), tries,
                    config.workerId(), failure.kind(), dueMs - clock.getAsLong());
            metrics.retried();
            retries.add(new PendingRetry(run, request, engine, deadlineMs, dueMs));
            return true;
        };
    }

    /** Starts the retries that are due, unless their partition moved, or the request was cancelled or re-placed meanwhile. */
    private void startDueRetries() {
        for (PendingRetry retry; (retry = retries.poll()) != null; ) {
            waitingRetries.add(retry);
        }
        if (waitingRetries.isEmpty()) {
            return;
        }
        long now = clock.getAsLong();
        Iterator<PendingRetry> it = waitingRetries.iterator();
        while (it.hasNext()) {
            PendingRetry retry = it.next();
            RequestRun failed = retry.failed();
            Owned partition = owned.get(failed.source());
            String id = failed.events().requestId();
            if (partition == null || partition.epoch != failed.epoch() || partition.runs.get(id) != failed) {
                // the partition moved on (its next owner runs the request again) or the run was replaced
                it.remove();
                continue;
            }
            if (retry.dueMs() > now) {
                continue;
            }
            it.remove();
            ResponseEvents next = failed.events().nextTry();
            if (superseded.isVoid(id, failed.dispatchAttempt())) {
                partition.runs.remove(id);
                outcomes.add(Outcome.superseded(failed.source(), failed.offset(), failed.epoch()));
            } else if (cancelledRecently(id, failed.events().tenant())) {
                outcomes.add(Outcome.terminal(failed.source(), failed.offset(), failed.epoch(),
                        next.cancelled(0, "cancelled while waiting to retry", new EngineUsage(0, 0, 0), now), null,
                        Outcome.Kind.CANCELLED, -1));
            } else if (retry.deadlineMs() != null && retry.deadlineMs() < now) {
                outcomes.add(Outcome.terminal(failed.source(), failed.offset(), failed.epoch(), next.expired(now), null,
                        Outcome.Kind.EXPIRED, -1));
            } else {
                RequestRun run = new RequestRun(next, failed.source(), failed.offset(), failed.epoch(), config.chunkTokens(),
                        this::sendChunk, outcomes::add, metrics::tokens, clock, retrierFor(retry.request(), retry.engine(), retry.deadlineMs()));
                partition.runs.put(id, run);
                try {
                    retry.engine().submit(retry.request(), run);
                } catch (RuntimeException e) {
                    LOG.warn("retry of request {} could not be started: {}", id, e.toString());
                    run.onFailed("worker could not start the retry: " + e.getMessage());
                }
            }
        }
    }

    /** Stops, without a result, the runs on this worker of dispatch attempts the router has since replaced. */
    private void applySupersedes() {
        for (String requestId; (requestId = supersedes.poll()) != null; ) {
            for (Owned partition : owned.values()) {
                RequestRun run = partition.runs.get(requestId);
                if (run == null || !superseded.isVoid(requestId, run.dispatchAttempt())) {
                    continue;
                }
                slots.cancel(requestId);
                if (run.supersede()) {
                    partition.runs.remove(requestId);
                    LOG.info("request {} was placed again elsewhere; its run on worker {} stops without a result", requestId,
                            config.workerId());
                }
            }
        }
    }

    /**
     * A run that ended before its re-placement marker was applied (its engine finished while the
     * process was frozen) still belongs to a voided attempt: its result must not be written.
     */
    private Outcome voidIfSuperseded(Outcome o) {
        if (o.terminal() == null
                || !superseded.isVoid(o.terminal().getRequestId(), RunAttempt.dispatchAttemptOf(o.terminal().getAttempt()))) {
            return o;
        }
        Owned partition = owned.get(o.source());
        if (partition != null) {
            partition.runs.remove(o.terminal().getRequestId());
        }
        LOG.info("request {} was placed again elsewhere; the result of its older run on worker {} is dropped",
                o.terminal().getRequestId(), config.workerId());
        return Outcome.superseded(o.source(), o.offset(), o.epoch());
    }

    private boolean anyWaitedLong(ConsumerRecords<byte[], byte[]> records) {
        long oldest = clock.getAsLong() - config.replacementCheckAfterMs();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            if (record.timestamp() < oldest) {
                return true;
            }
        }
        return false;
    }

    /**
     * Blocks (briefly) until the cancellations follower has read every record written before now,
     * then applies what it delivered: no re-placement marker written before this call is missed.
     */
    private void awaitCancellationsUpToNow() {
        long now = clock.getAsLong();
        if (!cancellationView.awaitReadUpTo(now, CANCELLATION_CATCH_UP_WAIT)) {
            LOG.warn("cancellations follower of worker {} not caught up within {} ms; going on without it", config.workerId(),
                    CANCELLATION_CATCH_UP_WAIT.toMillis());
        }
        applyCancels();
        applySupersedes();
    }

    /** The request's text, sampling and cache salt for engines that drive a real server. */
    static EnginePrompt prompt(InferenceRequest request) {
        SamplingParams sampling = request.getSampling();
        List<EnginePrompt.Message> messages = request.getMessages() == null ? null
                : request.getMessages().stream().map(m -> new EnginePrompt.Message(m.getRole(), m.getContent())).toList();
        String text = messages == null && request.getPrompt() == null ? "" : request.getPrompt();
        return new EnginePrompt(request.getModel(), messages == null ? text : null, messages,
                sampling == null ? null : sampling.getTemperature(),
                sampling == null ? null : sampling.getTopP(),
                sampling == null ? null : sampling.getSeed(),
                sampling == null ? List.of() : sampling.getStop(),
                request.getCacheSalt());
    }

    private static int promptTokens(InferenceRequest request) {
        if (request.getPromptTokenEstimate() > 0) {
            return request.getPromptTokenEstimate();
        }
        long chars = request.getPrompt() != null ? request.getPrompt().length()
                : request.getMessages() == null ? 0 : request.getMessages().stream().mapToLong(m -> m.getContent().length()).sum();
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (chars + 3) / 4));
    }

    /**
     * Where an event goes: with topics per tenant the responses topic of the tenant it names (every event names its
     * request's tenant, {@link ResponseEvents#of}), else the one responses topic. Serialized under the one responses
     * topic's schema subject either way, so a new tenant registers nothing.
     */
    private String responsesTopicOf(String tenant) {
        if (config.tenantTopics() != TenantTopics.PER_TENANT || tenant == null) {
            return responsesTopic;
        }
        return responsesTopics.computeIfAbsent(tenant, t -> config.topics().responsesFor(TenantTopics.PER_TENANT, t));
    }

    private Future<RecordMetadata> sendChunk(String requestId, ResponseEvent chunk) {
        String topic = responsesTopicOf(chunk.getTenant());
        byte[] value = responseSerializer.serialize(topic, chunk);
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, requestId, value);
        ResponseHeaders.markChunk(record.headers());
        return chunkProducer.send(record, (metadata, error) -> {
            if (error != null) {
                LOG.warn("token chunk of request {} not delivered: {}", requestId, error.toString());
            }

        });
    }

    private Outcome deadLetter(ConsumerRecord<byte[], byte[]> record, long epoch, Exception error) {
        Headers headers = DeadLetterHeaders.add(new RecordHeaders(record.headers().toArray()), record.topic(), record.partition(),
                record.offset(), error, String.valueOf(error.getMessage()), clock.getAsLong());
        LOG.warn("dispatch record {}-{}@{} is undecodable, sent to {}: {}", record.topic(), record.partition(),
                record.offset(), deadLetterTopic, error.getMessage());
        ProducerRecord<byte[], byte[]> out = new ProducerRecord<>(deadLetterTopic, null, record.key(), record.value(), headers);
        return Outcome.deadLetter(new TopicPartition(record.topic(), record.partition()), record.offset(), epoch, out);
    }



    /**
     * Writes finished results and the offsets they free in one transaction. Runs every
     * commit interval, and at once ({@code force}) before partitions are given up.
     */
    private void commitIfDue(boolean force) {
        long now = clock.getAsLong();
        if (!force && now - lastCommitMs < config.commitIntervalMs()) {
            return;
        }
        lastCommitMs = now;
        if (now - Math.min(lastLoopMs, lastCommitOkMs) > config.replacementCheckAfterMs()) {
            // this loop was frozen (a stopped process, a long pause) or could not commit for that long:
            // the router may have re-placed what it ran meanwhile
            awaitCancellationsUpToNow();
        }
        List<Outcome> batch = new ArrayList<>(retrying);
        retrying.clear();
        for (Outcome o; (o = outcomes.poll()) != null; ) {
            batch.add(o);
        }
        batch.removeIf(o -> {
            Owned partition = owned.get(o.source());
            return partition == null || partition.epoch != o.epoch();
        });
        batch.replaceAll(this::voidIfSuperseded);
        List<Outcome> unacked = awaitChunks(batch, force ? FORCED_CHUNK_ACK_WAIT_MS : CHUNK_ACK_WAIT_MS);
        batch.removeAll(unacked);
        retrying.addAll(unacked);
        if (batch.isEmpty() && dirty.isEmpty()) {
            lastCommitOkMs = now;
            return;
        }
        try {
            txProducer.beginTransaction();
            for (Outcome o : batch) {
                ProducerRecord<byte[], byte[]> record = o.toRecord(o.terminal() == null ? responsesTopic
                        : responsesTopicOf(o.terminal().getTenant()), responseSerializer);
                if (record != null) {
                    txProducer.send(record);
                }
            }
            for (Outcome o : batch) {
                Owned partition = owned.get(o.source());
                partition.progress.finished(o.offset());
                dirty.add(o.source());
            }
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            for (TopicPartition tp : dirty) {
                Owned partition = owned.get(tp);
                if (partition != null) {
                    offsets.put(tp, new OffsetAndMetadata(partition.progress.commitOffset(), partition.progress.commitMetadata()));
                }
            }
            txProducer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
            commitWithRetries();
        } catch (ProducerFencedException | OutOfOrderSequenceException
                 | UnsupportedVersionException | AuthorizationException e) {
            metrics.transaction(false);
            throw new IllegalStateException("worker " + config.workerId() + " cannot write transactions any more ("
                    + e.getClass().getSimpleName() + "): another instance with transactional id "
                    + config.transactionalId() + " may have taken over", e);
        } catch (KafkaException e) {
            // includes InvalidProducerEpochException (the coordinator aborted a transaction that ran
            // past its timeout): abortable, the batch is written again in the next transaction
            LOG.warn("transaction of worker {} aborted, will retry: {}", config.workerId(), e.toString());
            abortTransaction();
            metrics.transaction(false);
            retrying.addAll(batch);
            return;
        }
        metrics.transaction(true);
        lastCommitOkMs = now;
        dirty.clear();
        for (Outcome o : batch) {
            Owned partition = owned.get(o.source());
            if (partition != null && o.terminal() != null) {
                partition.runs.remove(o.terminal().getRequestId());
            }
            record(o);
        }
    }

    private void record(Outcome o) {
        switch (o.kind()) {
            case COMPLETED -> metrics.completed(o.ttftMs());
            case FAILED -> metrics.failed();
            case REJECTED -> metrics.rejected();
            case EXPIRED -> metrics.expired();
            case CANCELLED -> metrics.cancelled();
            case DEAD_LETTER -> metrics.deadLetter();
            case SUPERSEDED -> metrics.superseded();
            case HANDED_BACK -> metrics.handedBack();
            default -> throw new IllegalStateException("unknown outcome " + o.kind());
        }
    }

    /**
     * Waits, at most {@code waitMs} in all and before any transaction is open, for the last token
     * chunk of each outcome to be acknowledged: readers end a request at its terminal event, so a
     * terminal is never visible before its chunks (the idempotent producer keeps a key's chunks in
     * order, so earlier ones are then written too). Returns the outcomes still unacknowledged; they
     * wait for a later commit (the producer's delivery timeout bounds how long). A chunk that failed
     * is logged and its terminal written: readers see the gap.
     */
    private static List<Outcome> awaitChunks(List<Outcome> batch, long waitMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        List<Outcome> unacked = new ArrayList<>();
        for (Outcome o : batch) {
            if (o.lastChunk() == null) {
                continue;
            }
            try {
                o.lastChunk().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                unacked.add(o);
            } catch (ExecutionException e) {
                LOG.error("token chunks of the request at {}@{} may be missing: {}", o.source(), o.offset(), e.getCause().toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new KafkaException("interrupted waiting for a token chunk", e);
            }
        }
        return unacked;
    }

    /** A commit that timed out must be retried, not aborted (the producer refuses an abort then). */
    private void commitWithRetries() {
        for (int attempt = 1; ; attempt++) {
            try {
                txProducer.commitTransaction();
                return;
            } catch (org.apache.kafka.common.errors.TimeoutException e) {
                if (attempt == COMMIT_ATTEMPTS) {
                    throw e;
                }
                LOG.warn("commit of worker {} timed out (attempt {}), retrying", config.workerId(), attempt);
            }
        }
    }

    private void abortTransaction() {
        try {
            txProducer.abortTransaction();
        } catch (KafkaException | IllegalStateException e) {
            throw new IllegalStateException("worker " + config.workerId() + " cannot abort its transaction ("
                    + e.getClass().getSimpleName() + "); stopping so a restart can fence it: " + e.getMessage(), e);
        }
    }

    private void applyBackPressure() {
        // the bound is per GPU slot: past it on any slot the shared partition pauses, its other slots included
        int waiting = slots.mostWaiting();
        int maxWaiting = config.maxWaiting();
        if (!engineOverloaded && waiting > maxWaiting) {
            engineOverloaded = true;
        } else if (engineOverloaded && waiting < Math.max(1, maxWaiting * 3 / 4)) {
            engineOverloaded = false;
        }
        Set<TopicPartition> pause = new HashSet<>();
        Set<TopicPartition> resume = new HashSet<>();
        Set<TopicPartition> paused = consumer.paused();
        owned.forEach((tp, partition) -> {
            boolean shouldPause = engineOverloaded || partition.progress.span() >= MAX_TRACKED_SPAN;
            if (shouldPause && !paused.contains(tp)) {
                pause.add(tp);
            } else if (!shouldPause && paused.contains(tp)) {
                resume.add(tp);
            }
        });
        if (!pause.isEmpty()) {
            consumer.pause(pause);
        }
        if (!resume.isEmpty()) {
            consumer.resume(resume);
        }
    }

    private void publishOwnership() {
        ownedPartitions = owned.keySet().stream().map(TopicPartition::partition).sorted().toList();
    }

    private void release(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            Owned partition = owned.remove(tp);
            dirty.remove(tp);
            if (partition != null) {
                partition.runs.keySet().forEach(slots::cancel);
            }
        }
        publishOwnership();
    }

    /** Reacts to assignment changes on the poll thread. */
    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                return;
            }
            try {
                if (failure == null) {
                    commitIfDue(true);
                }
            } catch (IllegalStateException e) {
                throw e;
            } catch (RuntimeException e) {
                LOG.warn("commit before giving up {} failed: {}", partitions, e.toString());
            }
            release(partitions);
            LOG.info("worker {} gave up dispatch partitions {}", config.workerId(), partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            release(partitions);
            LOG.warn("worker {} lost dispatch partitions {}", config.workerId(), partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                return;
            }
            Map<TopicPartition, OffsetAndMetadata> committed;
            try {
                committed = consumer.committed(new HashSet<>(partitions));
            } catch (org.apache.kafka.common.errors.TimeoutException e) {
                throw new IllegalStateException("worker " + config.workerId() + " cannot read the committed offsets of "
                        + partitions + ": the group's offsets partition may hold a hanging transaction (list and abort it with "
                        + "`kvroute transactions --abort`); stopping so that a restart tries again", e);
            }
            for (TopicPartition tp : partitions) {
                OffsetAndMetadata c = committed.get(tp);
                PartitionProgress progress = c == null
                        ? new PartitionProgress(consumer.position(tp), null)
                        : new PartitionProgress(c.offset(), c.metadata());
                owned.put(tp, new Owned(progress, ++epochs));
                if (c != null && !c.metadata().isEmpty()) {
                    LOG.info("worker {} took {} at offset {}; {} later records already finished", config.workerId(), tp,
                            c.offset(), FinishedOffsetsCodec.decode(c.offset(), c.metadata()).size());
                }
            }
            publishOwnership();
            LOG.info("worker {} owns dispatch partitions {}", config.workerId(), ownedPartitions);
        }
    }

    /** An owned partition: its progress and the runs of its requests in the engine, by request id. */
    private static final class Owned {
        final PartitionProgress progress;
        final long epoch;
        final Map<String, RequestRun> runs = new HashMap<>();

        Owned(PartitionProgress progress, long epoch) {
            this.progress = progress;
            this.epoch = epoch;
        }
    }
}
