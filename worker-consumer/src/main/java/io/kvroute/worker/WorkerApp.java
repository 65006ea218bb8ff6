package io.kvroute.worker;

import io.kvroute.platform.config.ConfigException;
import io.kvroute.platform.config.Settings;
import io.kvroute.platform.metrics.PrometheusEndpoint;
import io.kvroute.schemas.serde.SerdeConfig;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.CancelRequest;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.KvCacheEvent;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.WorkerStatus;
import io.kvroute.schemas.v1.WorkerTelemetry;
import io.kvroute.worker.config.WorkerConfig;
import io.kvroute.worker.consumer.CancellationFollower;
import io.kvroute.worker.consumer.DispatchConsumer;
import io.kvroute.worker.engine.GpuSlots;
import io.kvroute.worker.engine.InferenceEngine;
import io.kvroute.worker.engine.ObservingEngine;
import io.kvroute.worker.engine.PoolQuotaEngine;
import io.kvroute.worker.engine.openai.OpenAiCompatibleEngine;
import io.kvroute.worker.engine.sim.CostModel;
import io.kvroute.worker.engine.sim.SimulatedGpuEngine;
import io.kvroute.worker.metrics.WorkerMetrics;
import io.kvroute.worker.telemetry.KvEventPublisher;
import io.kvroute.worker.telemetry.TelemetryPublisher;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.LongSupplier;
import org.apache.avro.Schema;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker process: an inference engine (the simulated GPU, or an OpenAI-compatible server per
 * {@code worker.engine}), the dispatch consumer loop on its own thread, a follower of the
 * cancellations topic on another (with its own consumer),
 * telemetry and KV-event publishing, and (optionally) a Prometheus endpoint. Topics must exist:
 * the launcher creates them.
 */
public final class WorkerApp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerApp.class);
    /** Transactions are short (one poll loop); a crashed worker's open one must not stall readers long. */
    public static final int TRANSACTION_TIMEOUT_MS = 10_000;
    static final int HEARTBEAT_INTERVAL_MS = 500;
    static final String[] ENVIRONMENT_PREFIXES = {"worker.", "kafka.", "bootstrap.", "schema.", "basic.auth.", "bearer.auth.", "kvroute."};

    private final WorkerConfig config;
    private final GpuSlots slots;
    private final KafkaProducer<String, byte[]> producer;
    private final DispatchConsumer dispatch;
    private final CancellationFollower cancellations;
    private final List<TelemetryPublisher> telemetry;
    private final WorkerMetrics metrics;
    private final PrometheusEndpoint endpoint;
    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile boolean closing;

    private WorkerApp(WorkerConfig config, GpuSlots slots, KafkaProducer<String, byte[]> producer,
                      DispatchConsumer dispatch, CancellationFollower cancellations, List<TelemetryPublisher> telemetry,
                      WorkerMetrics metrics, PrometheusEndpoint endpoint) {
        this.config = config;
        this.slots = slots;
        this.producer = producer;
        this.dispatch = dispatch;
        this.cancellations = cancellations;
        this.telemetry = telemetry;
        this.metrics = metrics;
        this.endpoint = endpoint;
    }

    /** Validates the settings and starts every part of the worker. */
    public static WorkerApp start(Settings settings) {
        Clock clock = Clock.systemUTC();
        return start(settings, clock::millis);
    }

    /** As {@link #start(Settings)}, with the clock that stamps events and measures TTFT. */
    public static WorkerApp start(Settings settings, LongSupplier clock) {
        WorkerConfig config = WorkerConfig.from(settings);
        Map<String, Object> serdeConfig = new HashMap<>(settings.asMap());
        serdeConfig.put(SerdeConfig.SCHEMA_REGISTRY_URL, config.schemaRegistryUrl());
        Serdes serdes = new Serdes(serdeConfig);
        KvrouteTopics topics = config.topics();
        registerSchemas(serdes, topics);

        Deque<AutoCloseable> opened = new ArrayDeque<>();
        try {
            GpuSlots slots = opened(opened, slots(config, clock));
            PrometheusMeterRegistry registry = PrometheusEndpoint.newRegistry();
            WorkerMetrics metrics = opened(opened, new WorkerMetrics(registry, config.workerId(), config.region(), slots));
            KafkaProducer<String, byte[]> producer = opened(opened, new KafkaProducer<>(producerProperties(config),
                    new StringSerializer(), new ByteArraySerializer()));
            KafkaProducer<byte[], byte[]> txProducer = opened(opened, new KafkaProducer<>(transactionalProperties(config),
                    new ByteArraySerializer(), new ByteArraySerializer()));
            KafkaConsumer<byte[], byte[]> consumer = opened(opened, new KafkaConsumer<>(consumerProperties(config),
                    new ByteArrayDeserializer(), new ByteArrayDeserializer()));
            KafkaConsumer<String, byte[]> cancelConsumer = opened(opened, new KafkaConsumer<>(cancellationConsumerProperties(config),
                    new StringDeserializer(), new ByteArrayDeserializer()));
            awaitTopic(producer, topics.responses().name());
            awaitTopic(producer, topics.cancellations().name());
            try {
                awaitTopic(producer, topics.dispatchTopic(config.region()));
            } catch (IllegalStateException e) {
                throw new ConfigException(WorkerConfig.REGION, config.region(),
                        "its dispatch topic " + topics.dispatchTopic(config.region()) + " does not exist: a region the router does not know?");
            }
            metrics.bindProducer(producer);
            metrics.bindProducer(txProducer);
            metrics.bindConsumer(consumer);

            DispatchConsumer dispatch = new DispatchConsumer(config, consumer, producer, txProducer, slots,
                    serdes.valueSerde(DispatchedRequest.class), serdes.valueSerde(ResponseEvent.class), metrics, clock);
            CancellationFollower cancellations = new CancellationFollower(cancelConsumer, topics.cancellations().name(), dispatch::cancel,
                    dispatch::supersede, serdes.valueSerde(CancelRequest.class).deserializer(),
                    Duration.ofMillis(config.cancellationLookbackMs()), clock);
            dispatch.cancellationView(cancellations);
            PrometheusEndpoint endpoint = config.metricsPort() < 0 ? null
                    : opened(opened, PrometheusEndpoint.start(config.metricsHost(), config.metricsPort(), registry,
                            WorkerHealth.of(dispatch::isRunning, dispatch::ownedPartitions, slots::unreachable)));
            // each GPU slot is a worker to the router: its own telemetry and KV events, the process's partitions
            List<TelemetryPublisher> telemetry = new ArrayList<>();
            for (GpuSlots.Slot slot : slots.slots()) {
                KvEventPublisher kvEvents = new KvEventPublisher(slot.workerId(), config.region(), topics.kvEvents().name(),
                        slot.engine(), producer, serdes.valueSerde(KvCacheEvent.class).serializer(), clock);
                telemetry.add(new TelemetryPublisher(slot.workerId(), config.region(), config.models(), config.pool(),
                        topics.workerTelemetry().name(), config.telemetryIntervalMs(), slot.engine(), dispatch::ownedPartitions,
                        // without its follower a worker no longer sees cancels or re-placements: still serving, not healthy
                        () -> !dispatch.isRunning() ? WorkerStatus.DOWN
                                : cancellations.isRunning() ? WorkerStatus.HEALTHY : WorkerStatus.DEGRADED, kvEvents, producer,
                        serdes.valueSerde(WorkerTelemetry.class).serializer(), clock));
                kvEvents.publishCleared();
            }

            new Thread(cancellations, "cancellations-" + config.workerId()).start();
            opened.push(cancellations);
            awaitPositioned(cancellations);
            telemetry.forEach(TelemetryPublisher::start);
            // started last: once it polls, only its own thread may touch the consumer
            new Thread(dispatch, "dispatch-" + config.workerId()).start();
            config.slotIdClash().ifPresent(LOG::warn);
            if (config.openai() != null) {
                LOG.info("worker {} started in region {} (group {}, engine openai at {}, model {}, max concurrency {})",
                        config.workerId(), config.region(), config.groupId(), config.openai().endpoint(),
                        config.openai().model(), config.openai().maxConcurrency());
            } else {
                LOG.info("worker {} started in region {} (group {}, engine {}, network delay {} ms, KV pages {} GPU + {} host)",
                        config.workerId(), config.region(), config.groupId(), config.engine(), config.networkDelayMs(),
                        config.kvBlocks(), config.hostKvBlocks());
            }
            return new WorkerApp(config, slots, producer, dispatch, cancellations, telemetry, metrics, endpoint);
        } catch (RuntimeException e) {
            opened.forEach(WorkerApp::closeQuietly);
            throw e;
        }
    }

    /**
     * The engine {@code worker.engine} names: the simulated GPU or an OpenAI-compatible server, observed alike
     * ({@link ObservingEngine}: what the worker reports of either is what it can see in front of a real server).
     */
    static InferenceEngine engine(WorkerConfig config, LongSupplier clock) {
        return engine(config, 0, config.workerId(), clock);
    }

    /** An engine per GPU slot ({@value WorkerConfig#GPUS}), each known by its slot's worker id. */
    static GpuSlots slots(WorkerConfig config, LongSupplier clock) {
        List<GpuSlots.Slot> slots = new ArrayList<>();
        List<String> ids = config.slotIds();
        try {
            for (int gpu = 0; gpu < ids.size(); gpu++) {
                slots.add(new GpuSlots.Slot(ids.get(gpu), engine(config, gpu, ids.get(gpu), clock)));
            }
        } catch (RuntimeException e) {
            slots.forEach(slot -> closeQuietly(slot.engine()));
            throw e;
        }
        return new GpuSlots(slots);
    }

    private static InferenceEngine engine(WorkerConfig config, int gpu, String slotId, LongSupplier clock) {
        InferenceEngine engine = WorkerConfig.ENGINE_OPENAI.equals(config.engine())
                ? new OpenAiCompatibleEngine(config.openaiOf(gpu), clock, slotId)
                : new SimulatedGpuEngine(CostModel.llama8bH100(config.speed()), config.engineLimits(), config.networkDelayMs(),
                        clock, slotId);
        if (config.poolRequestsPerMinute() > 0 || config.poolTokensPerMinute() > 0) {
            engine = new PoolQuotaEngine(engine, config.poolRequestsPerMinute(), config.poolTokensPerMinute(), clock);
        }
        return new ObservingEngine(engine, clock);
    }

    private static <T extends AutoCloseable> T opened(Deque<AutoCloseable> opened, T resource) {
        opened.push(resource);
        return resource;
    }

    private static void closeQuietly(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception e) {
            LOG.warn("closing {} after a failed start failed: {}", resource.getClass().getSimpleName(), e.toString());
        }
    }

    /** Fails start-up with a clear message if the topics are missing (the launcher creates them). */
    private static void awaitTopic(KafkaProducer<?, ?> producer, String topic) {
        try {
            producer.partitionsFor(topic);
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            throw new IllegalStateException("topic " + topic + " is not available: create kvroute's topics first"
                    + " (the launcher does) and check bootstrap.servers", e);
        }
    }

    /**
     * Registers the schemas this worker writes at start-up, so an unreachable or refusing registry
     * fails the start (naming the subject) rather than the first chunk send.
     */
    static void registerSchemas(Serdes serdes, KvrouteTopics topics) {
        Map<String, Schema> subjects = Map.of(
                topics.responses().name() + "-value", ResponseEvent.getClassSchema(),
                topics.workerTelemetry().name() + "-value", WorkerTelemetry.getClassSchema(),
                topics.kvEvents().name() + "-value", KvCacheEvent.getClassSchema());
        subjects.forEach((subject, schema) -> {
            try {
                serdes.registry().register(subject, schema);
            } catch (RuntimeException e) {
                throw new IllegalStateException("cannot register the schema of " + subject + ": " + e.getMessage(), e);
            }
        });
    }

    static Map<String, Object> producerProperties(WorkerConfig config) {
        Map<String, Object> p = common(config);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, config.workerId() + "-producer");
        p.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        return p;
    }

    static Map<String, Object> transactionalProperties(WorkerConfig config) {
        Map<String, Object> p = common(config);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, config.workerId() + "-tx");
        p.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.putIfAbsent(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, TRANSACTION_TIMEOUT_MS);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, config.transactionalId());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        return p;
    }

    /** The cancellations consumer: assigned, never in a group, never committing, read_committed. */
    static Map<String, Object> cancellationConsumerProperties(WorkerConfig config) {
        Map<String, Object> p = common(config);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, config.workerId() + "-cancellations");
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return p;
    }

    private static void awaitPositioned(CancellationFollower cancellations) {
        try {
            if (!cancellations.awaitPositioned(Duration.ofSeconds(30))) {
                LOG.warn("the cancellations consumer is not positioned after 30 s; cancels may be missed until it is");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the cancellations consumer", e);
        }
    }

    static Map<String, Object> consumerProperties(WorkerConfig config) {
        Map<String, Object> p = common(config);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, config.workerId() + "-consumer");
        p.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 100);
        p.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // cooperative: a rebalance revokes only the partitions that move, so other in-flight inference keeps running
        p.putIfAbsent(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        // members learn of a rebalance from heartbeats; the cooperative protocol's second round waits for them
        p.putIfAbsent(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, HEARTBEAT_INTERVAL_MS);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return p;
    }

    private static Map<String, Object> common(WorkerConfig config) {
        Map<String, Object> p = new HashMap<>(config.kafka());
        p.put("bootstrap.servers", config.bootstrapServers());
        return p;
    }

    public String workerId() {
        return config.workerId();
    }

    public WorkerConfig config() {
        return config;
    }

    /** The Prometheus port, or null when metrics are not served. */
    public Integer metricsPort() {
        return endpoint == null ? null : endpoint.port();
    }

    public WorkerMetrics metrics() {
        return metrics;
    }

    /** The engine of the first (with one GPU, the only) slot. */
    public InferenceEngine engine() {
        return slots.slots().get(0).engine();
    }

    /** Every GPU slot this process serves. */
    public GpuSlots slots() {
        return slots;
    }

    /** Dispatch partitions this worker owns now. */
    public List<Integer> ownedPartitions() {
        return dispatch.ownedPartitions();
    }

    /** True once a cancel of this request has reached this worker (the most recent ones are kept). */
    public boolean isCancelled(String requestId) {
        return dispatch.isCancelled(requestId);
    }

    /** False once the dispatch loop has stopped (closed, or failed: see the log). */
    public boolean isRunning() {
        return dispatch.isRunning();
    }

    /** Blocks until {@link #close()} has finished. */
    public void awaitClosed() throws InterruptedException {
        closed.await();
    }

    /** Announces DOWN, commits finished work and leaves the group, then stops the engine and clients. */
    @Override
    public void close() {
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
        }
        try {
            // each announces DOWN and waits for it: in parallel, so many slots do not hold up the final commit
            telemetry.parallelStream().forEach(TelemetryPublisher::close);
            dispatch.close();
            cancellations.close();
            slots.close();
            producer.close(Duration.ofSeconds(5));
            metrics.close();
            if (endpoint != null) {
                endpoint.close();
            }
            LOG.info("worker {} stopped", config.workerId());
        } finally {
            closed.countDown();
        }
    }

    /** {@code --config FILE} and {@code key=value} overrides; layers: defaults, file, KVROUTE_ environment, arguments. */
    public static void main(String[] args) throws InterruptedException {
        Settings settings;
        try {
            settings = settingsFrom(args, System.getenv());
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        WorkerApp app;
        try {
            app = start(settings);
        } catch (ConfigException e) {
            System.err.println("kvroute worker: " + e.getMessage());
            System.exit(2);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(app::close, "worker-shutdown"));
        app.dispatch.awaitStopped();
        if (!app.closing) {
            LOG.error("worker {} dispatch loop stopped; exiting", app.workerId());
            app.close();
            System.exit(1);
        }
        app.awaitClosed();
    }

    /** The layered settings of a worker process: defaults, {@code --config FILE}, {@code KVROUTE_*} variables, {@code key=value} arguments. */
    public static Settings settingsFrom(String[] args, Map<String, String> environment) {
        Path file = null;
        Map<String, String> overrides = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--config") && i + 1 < args.length) {
                file = Path.of(args[++i]);
            } else if (arg.startsWith("--config=")) {
                file = Path.of(arg.substring("--config=".length()));
            } else if (arg.contains("=")) {
                int eq = arg.indexOf('=');
                overrides.put(arg.substring(0, eq).replaceFirst("^--", ""), arg.substring(eq + 1));
            } else {
                throw new IllegalArgumentException("usage: worker [--config FILE] [key=value ...]; unexpected argument: " + arg);
            }
        }
        return Settings.builder()
                .defaults(WorkerConfig.defaults())
                .file(file)
                .environment(environment, ENVIRONMENT_PREFIXES)
                .overrides(overrides)
                .build();
    }
}
