package io.kvroute.worker.metrics;

import io.kvroute.worker.engine.EngineStats;
import io.kvroute.worker.engine.GpuSlots;
import io.kvroute.worker.engine.InferenceEngine;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;

/**
 * The worker's own meters, all named under {@value #PREFIX}, plus the Kafka client metrics of its
 * consumer and producers. Tagged with the worker id and region. Holds no prompt data.
 */
public final class WorkerMetrics implements AutoCloseable {
    public static final String PREFIX = "kvroute.worker.";
    public static final String ENGINE_WAITING = PREFIX + "engine.waiting";
    public static final String ENGINE_RUNNING = PREFIX + "engine.running";
    public static final String KV_USAGE = PREFIX + "kv.usage";
    public static final String PREFIX_HIT_RATE = PREFIX + "prefix.hit.rate";
    /** Share of the host-DRAM prefix tier in use (0 without one). */
    public static final String HOST_KV_USAGE = PREFIX + "host.kv.usage";
    /** The part of {@value #PREFIX_HIT_RATE} loaded from the host tier. */
    public static final String HOST_PREFIX_HIT_RATE = PREFIX + "host.prefix.hit.rate";
    public static final String REQUESTS = PREFIX + "requests";
    public static final String TTFT = PREFIX + "ttft";
    public static final String TOKENS = PREFIX + "tokens";
    public static final String DEAD_LETTERS = PREFIX + "dead.letters";
    public static final String TRANSACTIONS = PREFIX + "transactions";

    private final MeterRegistry registry;
    private final Tags tags;
    private final Counter completed;
    private final Counter failed;
    private final Counter rejected;
    private final Counter expired;
    private final Counter cancelled;
    private final Counter superseded;
    private final Counter handedBack;
    private final Counter retried;
    private final Counter deadLetters;
    private final Counter transactionsCommitted;
    private final Counter transactionsAborted;
    private final Counter tokens;
    private final Timer ttft;
    private final List<KafkaClientMetrics> clientMetrics = new ArrayList<>();

    public WorkerMetrics(MeterRegistry registry, String workerId, String region, InferenceEngine engine) {
        this(registry, workerId, region, GpuSlots.single(workerId, engine));
    }

    /** The engine gauges per GPU slot (tagged with the slot's worker id), the rest per process. */
    public WorkerMetrics(MeterRegistry registry, String workerId, String region, GpuSlots slots) {
        this.registry = registry;
        this.tags = Tags.of("worker", workerId, "region", region);
        for (GpuSlots.Slot slot : slots.slots()) {
            Tags slotTags = Tags.of("worker", slot.workerId(), "region", region);
            InferenceEngine engine = slot.engine();
            gauge(ENGINE_WAITING, engine, slotTags, e -> e.snapshot().waitingRequests());
            gauge(ENGINE_RUNNING, engine, slotTags, e -> e.snapshot().runningRequests());
            // NaN, not 0, while the engine does not know its KV use: an unknown cache is not an empty one
            gauge(KV_USAGE, engine, slotTags, e -> {
                EngineStats stats = e.snapshot();
                return stats.kvReported() ? stats.kvUsage() : Double.NaN;
            });
            gauge(PREFIX_HIT_RATE, engine, slotTags, e -> e.snapshot().prefixCacheHitRate());
            gauge(HOST_KV_USAGE, engine, slotTags, e -> e.snapshot().hostKvUsage());
            gauge(HOST_PREFIX_HIT_RATE, engine, slotTags, e -> e.snapshot().hostPrefixHitRate());
        }
        completed = Counter.builder(REQUESTS).tags(tags).tag("status", "completed").register(registry);
        failed = Counter.builder(REQUESTS).tags(tags).tag("status", "failed").register(registry);
        rejected = Counter.builder(REQUESTS).tags(tags).tag("status", "rejected").register(registry);
        expired = Counter.builder(REQUESTS).tags(tags).tag("status", "expired").register(registry);
        cancelled = Counter.builder(REQUESTS).tags(tags).tag("status", "cancelled").register(registry);
        superseded = Counter.builder(REQUESTS).tags(tags).tag("status", "superseded")
                .description("runs dropped without a result because the router placed the request again").register(registry);
        // runs a rate-limited server refused, handed back to the router to place elsewhere
        handedBack = Counter.builder(REQUESTS).tags(tags).tag("status", "handed_back").register(registry);
        retried = Counter.builder(PREFIX + "retries").tags(tags)
                .description("tries retried on this worker after a transient inference-server failure").register(registry);
        deadLetters = Counter.builder(DEAD_LETTERS).tags(tags).register(registry);
        transactionsCommitted = Counter.builder(TRANSACTIONS).tags(tags).tag("outcome", "committed").register(registry);
        transactionsAborted = Counter.builder(TRANSACTIONS).tags(tags).tag("outcome", "aborted").register(registry);
        tokens = Counter.builder(TOKENS).tags(tags).description("output tokens streamed").register(registry);
        ttft = Timer.builder(TTFT).tags(tags).publishPercentileHistogram().register(registry);
    }

    private void gauge(String name, InferenceEngine engine, Tags slotTags, ToDoubleFunction<InferenceEngine> f) {
        Gauge.builder(name, engine, f).tags(slotTags).register(registry);
    }

    public void bindConsumer(Consumer<?, ?> consumer) {
        bind(new KafkaClientMetrics(consumer, tags));
    }

    public void bindProducer(Producer<?, ?> producer) {
        bind(new KafkaClientMetrics(producer, tags));
    }

    private void bind(KafkaClientMetrics metrics) {
        metrics.bindTo(registry);
        synchronized (clientMetrics) {
            clientMetrics.add(metrics);
        }
    }

    public void completed(long ttftMs) {
        completed.increment();
        ttft.record(Duration.ofMillis(ttftMs));
    }

    public void failed() {
        failed.increment();
    }

    public void rejected() {
        rejected.increment();
    }

    public void expired() {
        expired.increment();
    }

    public void cancelled() {
        cancelled.increment();
    }

    public void retried() {
        retried.increment();
    }

    public void superseded() {
        superseded.increment();
    }

    /** A run its server refused for a rate limit, handed back to the router to place elsewhere. */
    public void handedBack() {
        handedBack.increment();
    }

    public void deadLetter() {
        deadLetters.increment();
    }

    public void tokens(int count) {
        tokens.increment(count);
    }

    public void transaction(boolean committed) {
        (committed ? transactionsCommitted : transactionsAborted).increment();
    }

    public MeterRegistry registry() {
        return registry;
    }

    @Override
    public void close() {
        synchronized (clientMetrics) {
            clientMetrics.forEach(KafkaClientMetrics::close);
            clientMetrics.clear();
        }
    }
}
