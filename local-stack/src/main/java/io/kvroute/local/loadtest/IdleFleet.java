package io.kvroute.local.loadtest;

import io.kvroute.local.stack.KvrouteServices;
import io.kvroute.platform.config.Settings;
import io.kvroute.schemas.v1.WorkerStatus;
import io.kvroute.schemas.v1.WorkerTelemetry;
import io.kvroute.worker.config.WorkerConfig;
import io.kvroute.worker.engine.EngineStats;
import io.kvroute.worker.engine.ObservingEngine;
import io.kvroute.worker.engine.sim.CostModel;
import io.kvroute.worker.engine.sim.SimulatedGpuEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The telemetry of {@code W} idle workers and nothing else: no worker consumes its dispatch
 * partition, so every dispatched request stays on its topic. Each record is what a real idle
 * simulated-GPU worker publishes ({@code TelemetryPublisher}): same key (worker id
 * {@code <region>-<slot>}), region, models, pool, owned partition (its slot), the idle engine's
 * own snapshot seen through the worker's observing wrapper, status HEALTHY, observed now. All
 * are republished every interval for as long as this runs; on close each announces DOWN, as a
 * worker stopping cleanly does.
 */
public final class IdleFleet implements AutoCloseable {
    public static final long INTERVAL_MS = 250;

    private record Worker(String id, String region, int slot, String pool, List<String> models) {
    }

    private final String topic;
    private final List<Worker> workers = new ArrayList<>();
    private final EngineStats idle;
    private final KafkaProducer<String, byte[]> producer;
    private final Serializer<WorkerTelemetry> serializer;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "loadtest-telemetry");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();

    /**
     * @param workerSettings the settings a real worker of (region, slot) would start with
     */
    public IdleFleet(String bootstrapServers, String topic, Map<String, Integer> slotsByRegion,
                     BiFunction<String, Integer, Settings> workerSettings, Serializer<WorkerTelemetry> serializer) {
        this.topic = topic;
        this.serializer = serializer;
        WorkerConfig first = null;
        for (Map.Entry<String, Integer> region : slotsByRegion.entrySet()) {
            for (int slot = 0; slot < region.getValue(); slot++) {
                WorkerConfig config = WorkerConfig.from(workerSettings.apply(region.getKey(), slot));
                first = first == null ? config : first;
                workers.add(new Worker(config.workerId(), config.region(), slot, config.pool(), config.models()));
            }
        }
        this.idle = idleSnapshot(first);
        this.producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.CLIENT_ID_CONFIG, "kvroute-loadtest-telemetry",
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 5), new StringSerializer(), new ByteArraySerializer());
    }

    /** What an idle worker's engine reports: a simulated GPU built as the worker builds it, asked once, closed. */
    private static EngineStats idleSnapshot(WorkerConfig config) {
        SimulatedGpuEngine gpu = new SimulatedGpuEngine(CostModel.llama8bH100(config.speed()), config.engineLimits(),
                config.networkDelayMs(), System::currentTimeMillis, config.workerId());
        try (ObservingEngine engine = new ObservingEngine(gpu, System::currentTimeMillis)) {
            return engine.snapshot();
        }
    }

    /** Publishes every worker's telemetry now and then every {@value #INTERVAL_MS} ms. */
    public IdleFleet start() {
        publishAll(WorkerStatus.HEALTHY);
        producer.flush();
        scheduler.scheduleAtFixedRate(() -> publishAll(WorkerStatus.HEALTHY), INTERVAL_MS, INTERVAL_MS, TimeUnit.MILLISECONDS);
        return this;
    }

    public int size() {
        return workers.size();
    }

    /** Telemetry records handed to Kafka and acknowledged so far, and those that failed. */
    public long published() {
        return published.get();
    }

    public long failed() {
        return failed.get();
    }

    private void publishAll(WorkerStatus status) {
        long now = System.currentTimeMillis();
        for (Worker worker : workers) {
            WorkerTelemetry telemetry = WorkerTelemetry.newBuilder()
                    .setWorkerId(worker.id())
                    .setRegion(worker.region())
                    .setModels(worker.models())
                    .setOwnedPartitions(status == WorkerStatus.DOWN ? List.of() : List.of(worker.slot()))
                    .setKvBlocksTotal(idle.kvBlocksTotal())
                    .setKvBlocksUsed(idle.kvBlocksUsed())
                    .setKvBlockTokens(idle.kvBlockTokens())
                    .setKvUsage(idle.kvUsage())
                    .setRunningRequests(idle.runningRequests())
                    .setWaitingRequests(idle.waitingRequests())
                    .setRunningPrefill(idle.runningPrefill())
                    .setRunningDecode(idle.runningDecode())
                    .setQueuedPrefillTokens(idle.queuedPrefillTokens())
                    .setQueuedPrefillAttention(idle.queuedPrefillAttention())
                    .setMaxRunningRequests(idle.maxRunningRequests())
                    .setPrefixCacheHitRate(idle.prefixCacheHitRate())
                    .setTokensPerSecond(idle.tokensPerSecond())
                    .setStatus(status)
                    .setRateLimitedUntilMs(null)
                    .setObservedAtMs(now)
                    .setPool(worker.pool())
                    .setOwedPrefillTokens(idle.observed().owedPrefillTokens())
                    .setOwedPrefillRequests(idle.observed().owedPrefillRequests())
                    .setDecodingContextTokens(idle.observed().decodingContextTokens())
                    .setRecentTtftMs(idle.observed().recentTtftMs())
                    .setDecodeMsPerToken(idle.observed().decodeMsPerToken())
                    .build();
            producer.send(new ProducerRecord<>(topic, worker.id(), serializer.serialize(topic, telemetry)), (metadata, error) -> {
                if (error == null) {
                    published.incrementAndGet();
                } else {
                    failed.incrementAndGet();
                }
            });
        }
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        try {
            scheduler.awaitTermination(5, TimeUnit.SECONDS);
            publishAll(WorkerStatus.DOWN);
            producer.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // the broker may already be gone: the DOWN records are a courtesy
        } finally {
            producer.close(java.time.Duration.ofSeconds(5));
        }
    }

    /** The settings function of {@link KvrouteServices#workerSettings}, by region name and slot. */
    static BiFunction<String, Integer, Settings> settingsOf(KvrouteServices services, Map<String, Integer> slotsByRegion) {
        return (region, slot) -> services.workerSettings(new io.kvroute.bench.sim.FleetSpec.Region(region, slotsByRegion.get(region), 0), slot);
    }
}
