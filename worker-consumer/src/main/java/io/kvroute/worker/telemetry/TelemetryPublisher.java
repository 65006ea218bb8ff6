package io.kvroute.worker.telemetry;

import io.kvroute.schemas.v1.WorkerStatus;
import io.kvroute.schemas.v1.WorkerTelemetry;
import io.kvroute.worker.engine.EngineStats;
import io.kvroute.worker.engine.InferenceEngine;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the worker's {@link WorkerTelemetry} (keyed by worker id, to a compacted topic) every
 * interval, and sooner on a significant change: KV usage moved more than
 * {@value #KV_USAGE_CHANGE} since the last record, the waiting queue at least doubled, or the
 * owned partitions changed. KV events go out on the same tick. On a clean stop it publishes
 * status DOWN so routers stop placing work here at once. The status comes from the caller (DOWN
 * once the dispatch loop has stopped); a HEALTHY worker whose engine is degraded (its server's
 * metrics unreadable, or cooling down after a 429) is published DEGRADED, with the engine's
 * rate-limit end in {@code rateLimitedUntilMs} while it lies in the future.
 */
public final class TelemetryPublisher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TelemetryPublisher.class);
    public static final double KV_USAGE_CHANGE = 0.05;
    /** How often, as a fraction of the interval, to look for a significant change. */
    static final int CHECKS_PER_INTERVAL = 5;

    private final String workerId;
    private final String region;
    private final List<String> models;
    private final String pool;
    private final String topic;
    private final long intervalMs;
    private final InferenceEngine engine;
    private final Supplier<List<Integer>> ownedPartitions;
    private final Supplier<WorkerStatus> status;
    private final KvEventPublisher kvEvents;
    private final Producer<String, byte[]> producer;
    private final Serializer<WorkerTelemetry> serializer;
    private final LongSupplier clock;
    private ScheduledExecutorService scheduler;
    private WorkerTelemetry last;
    private long lastPublishedMs;
    private boolean closed;

    public TelemetryPublisher(String workerId, String region, List<String> models, String pool, String topic, long intervalMs,
                              InferenceEngine engine, Supplier<List<Integer>> ownedPartitions, Supplier<WorkerStatus> status,
                              KvEventPublisher kvEvents,
                              Producer<String, byte[]> producer, Serializer<WorkerTelemetry> serializer, LongSupplier clock) {
        this.workerId = workerId;
        this.region = region;
        this.models = List.copyOf(models);
        this.pool = pool;
        this.topic = topic;
        this.intervalMs = intervalMs;
        this.engine = engine;
        this.ownedPartitions = ownedPartitions;
        this.status = status;
        this.kvEvents = kvEvents;
        this.producer = producer;
        this.serializer = serializer;
        this.clock = clock;
    }

    public synchronized void start() {
        if (closed) {
            throw new IllegalStateException("telemetry publisher of " + workerId + " is closed");
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "telemetry-" + workerId);
            t.setDaemon(true);
            return t;
        });
        long period = Math.max(1, intervalMs / CHECKS_PER_INTERVAL);
        scheduler.scheduleAtFixedRate(this::safeTick, 0, period, TimeUnit.MILLISECONDS);
    }

    private void safeTick() {
        try {
            tick();
        } catch (RuntimeException e) {
            LOG.warn("telemetry of worker {} not published: {}", workerId, e.toString());
        }
    }

    /** Publishes telemetry (and KV events) if the interval elapsed or the state changed significantly. */
    public synchronized boolean tick() {
        if (closed) {
            return false;
        }
        WorkerTelemetry now = build(status.get());
        if (last != null && now.getObservedAtMs() - lastPublishedMs < intervalMs && !significantChange(last, now)) {
            return false;
        }
        kvEvents.publishChanges();
        send(now);
        return true;
    }

    static boolean significantChange(WorkerTelemetry before, WorkerTelemetry now) {
        return Math.abs(now.getKvUsage() - before.getKvUsage()) > KV_USAGE_CHANGE
                || now.getWaitingRequests() >= 2 * Math.max(1, before.getWaitingRequests())
                || !now.getOwnedPartitions().equals(before.getOwnedPartitions())
                || now.getStatus() != before.getStatus()
                || !java.util.Objects.equals(now.getRateLimitedUntilMs(), before.getRateLimitedUntilMs());
    }

    private WorkerTelemetry build(WorkerStatus given) {
        EngineStats s = engine.snapshot();
        long nowMs = clock.getAsLong();
        long rateLimitedUntil = engine.rateLimitedUntilMs();
        WorkerStatus status = given == WorkerStatus.HEALTHY && engine.isDegraded() ? WorkerStatus.DEGRADED : given;
        return WorkerTelemetry.newBuilder()
                .setWorkerId(workerId)
                .setRegion(region)
                .setModels(models)
                .setOwnedPartitions(ownedPartitions.get())
                .setKvBlocksTotal(s.kvBlocksTotal())
                .setKvBlocksUsed(s.kvBlocksUsed())
                .setKvBlockTokens(s.kvBlockTokens())
                .setKvUsage(s.kvUsage())
                .setRunningRequests(s.runningRequests())
                .setWaitingRequests(s.waitingRequests())
                .setRunningPrefill(s.runningPrefill())
                .setRunningDecode(s.runningDecode())
                .setQueuedPrefillTokens(s.queuedPrefillTokens())
                .setQueuedPrefillAttention(s.queuedPrefillAttention())
                .setMaxRunningRequests(s.maxRunningRequests())
                .setPrefixCacheHitRate(s.prefixCacheHitRate())
                .setTokensPerSecond(s.tokensPerSecond())
                .setStatus(status)
                .setRateLimitedUntilMs(rateLimitedUntil > nowMs ? rateLimitedUntil : null)
                .setObservedAtMs(nowMs)
                .setPool(pool)
                .setOwedPrefillTokens(s.observed().owedPrefillTokens())
                .setOwedPrefillRequests(s.observed().owedPrefillRequests())
                .setDecodingContextTokens(s.observed().decodingContextTokens())
                .setRecentTtftMs(s.observed().recentTtftMs())
                .setDecodeMsPerToken(s.observed().decodeMsPerToken())
                .build();
    }

    private void send(WorkerTelemetry telemetry) {
        last = telemetry;
        lastPublishedMs = telemetry.getObservedAtMs();
        producer.send(new ProducerRecord<>(topic, workerId, serializer.serialize(topic, telemetry)), (metadata, error) -> {
            if (error != null) {
                LOG.warn("telemetry of worker {} not delivered: {}", workerId, error.toString());
            }
        });
    }

    /** Stops the periodic publishing and announces DOWN, waiting (briefly) for it to be written. */
    @Override
    public void close() {
        ScheduledExecutorService running;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            running = scheduler;
            scheduler = null;
        }
        try {
            if (running != null) {
                running.shutdownNow();
                running.awaitTermination(2, TimeUnit.SECONDS);
            }
            WorkerTelemetry down = WorkerTelemetry.newBuilder(build(WorkerStatus.DOWN)).setOwnedPartitions(List.of()).build();
            producer.send(new ProducerRecord<>(topic, workerId, serializer.serialize(topic, down))).get(5, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.warn("worker {} could not announce DOWN: {}", workerId, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
