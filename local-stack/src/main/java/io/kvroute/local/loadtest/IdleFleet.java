package io.kvroute.local.loadtest;

import io.kvroute.local.stack.KvrouteServices;
import io.kvroute.platform.config.Settings;
import io.kvroute.schemas.v1.WorkerStatus;
import io.kvroute.schemas.v1.WorkerTelemetry;
import io.kvroute.worker.config.WorkerConfig;
import io.kvroute.worker.engine.EngineStats;
import io.kvroute.worker.engine.GpuSlots;
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
 * {@code <region>-<process>}, or {@code <region>-<process>-g<i>} for a process of several GPU slots), region, models,
 * pool, owned partition (its process's), the idle engine's
 * own snapshot seen through the worker's observing wrapper, status HEALTHY, observed now. All
 * are republished every interval for as long as this runs; on close each announces DOWN, as a
 * worker stopping cleanly does.
 */
public final class IdleFleet implements AutoCloseable {
    public static final long INTERVAL_MS = 250;

    private record Worker(String id, String region, int partition, String pool, List<String> models) {
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
     * @param gpusByRegion  GPU slots per region, each a worker to the router
     * @param gpusPerWorker slots per worker process: process {@code n} of a region serves its GPUs {@code n*K ..}, owns
     *                      dispatch partition {@code n}, and names its slots as a real worker with {@code worker.gpus} does
     * @param workerSettings the settings a real worker process {@code n} of a region would start with
     */
    public IdleFleet(String bootstrapServers, String topic, Map<String, Integer> gpusByRegion, int gpusPerWorker,
                     BiFunction<String, Integer, Settings> workerSettings, Serializer<WorkerTelemetry> serializer) {
        this.topic = topic;
        this.serializer = serializer;
        WorkerConfig first = null;
        for (Map.Entry<String, Integer> region : gpusByRegion.entrySet()) {
            int gpus = region.getValue();
            for (int process = 0; process * gpusPerWorker < gpus; process++) {
                WorkerConfig config = WorkerConfig.from(workerSettings.apply(region.getKey(), process));
                first = first == null ? config : first;
                int slots = Math.min(gpusPerWorker, gpus - process * gpusPerWorker);
                for (String slotId : GpuSlots.slotIds(config.workerId(), slots)) {
                    workers.add(new Worker(slotId, config.region(), process, config.pool(), config.models()));
                }
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
                    .setOwnedPartitions(status == WorkerStatus.DOWN ? List.of() : List.of(worker.partition()))
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

    /** The settings function of {@link KvrouteServices#workerSettings}, by region name and worker process. */
    static BiFunction<String, Integer, Settings> settingsOf(KvrouteServices services, Map<String, Integer> processesByRegion) {
        return (region, process) -> services.workerSettings(
                new io.kvroute.bench.sim.FleetSpec.Region(region, processesByRegion.get(region), 0), process);
    }
}
