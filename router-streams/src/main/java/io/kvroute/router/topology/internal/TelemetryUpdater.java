package io.kvroute.router.topology.internal;

import io.kvroute.router.config.RouterConfig;
import io.kvroute.router.errors.GlobalDeadLetters;
import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.router.routing.Cooldowns;
import io.kvroute.router.routing.FleetView;
import io.kvroute.router.routing.RegionCatalog;
import io.kvroute.schemas.registry.SchemaRegistryException;
import io.kvroute.schemas.v1.WorkerTelemetry;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the global telemetry store: one entry per worker, holding the raw bytes of its latest
 * plausible telemetry record. A record that cannot be decoded or reports impossible values
 * (negative capacity, KV usage or hit rate outside [0, 1], NaN, queues or rates no real server
 * has, a partition no dispatch topic has, a workerId other than its key: a record updates only
 * the worker its key names) is skipped with a warning and a metric, and dead-lettered with the
 * reason in headers ({@link GlobalDeadLetters}): a failure here would stop the global thread and
 * with it the whole router. A record that cannot be decoded because the
 * registry is unreachable is skipped but not dead-lettered: it is not the record's fault, and the
 * worker reports again within its telemetry interval.
 * A tombstone removes the worker. Each stored record also updates the router's {@link FleetView}
 * (decoded once here, not per request).
 *
 * <p>Times are the router's: a record observed more than {@link TelemetryLimits#maxClockSkewMs}
 * ahead of the router's clock is refused, and one observed ahead by less counts as observed when it
 * arrived, so a worker that stops reporting goes stale one TTL after its last record arrived,
 * whatever that record's stamp. (The store keeps the record's own bytes; a routing task seeding its
 * view from the store may see a stamp up to the skew bound ahead, once.)
 *
 * <p>A worker reporting {@code rateLimitedUntilMs} in the future gets no work until then (the
 * candidate filter reads it from its snapshot), counted at most {@link TelemetryLimits#maxRateLimitMs}
 * past the record's arrival. If its region is one rate-limited pool
 * ({@link RegionCatalog#sharedRateLimit}, e.g. an external provider), the whole region is cooled
 * until then ({@link Cooldowns#coolRegion}): its other workers share the exhausted quota.
 */
public final class TelemetryUpdater implements Processor<String, byte[], Void, Void> {
    private static final Logger LOG = LoggerFactory.getLogger(TelemetryUpdater.class);

    private final String topic;
    private final Deserializer<WorkerTelemetry> deserializer;
    private final RouterMetrics metrics;
    private final FleetView fleet;
    private final GlobalDeadLetters deadLetters;
    private final RegionCatalog regions;
    private final Cooldowns cooldowns;
    private final TelemetryLimits limits;
    private ProcessorContext<Void, Void> context;
    private KeyValueStore<String, byte[]> store;

    public TelemetryUpdater(String topic, Deserializer<WorkerTelemetry> deserializer, RouterMetrics metrics) {
        this(topic, deserializer, metrics, new FleetView(), GlobalDeadLetters.none(), RegionCatalog.empty(), new Cooldowns(),
                TelemetryLimits.defaults());
    }

    public TelemetryUpdater(String topic, Deserializer<WorkerTelemetry> deserializer, RouterMetrics metrics, FleetView fleet,
                            GlobalDeadLetters deadLetters, RegionCatalog regions, Cooldowns cooldowns, TelemetryLimits limits) {
        this.limits = limits;
        this.regions = regions;
        this.cooldowns = cooldowns;
        this.topic = topic;
        this.deserializer = deserializer;
        this.metrics = metrics;
        this.fleet = fleet;
        this.deadLetters = deadLetters;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.context = context;
        store = context.getStateStore(TopologyNames.TELEMETRY_STORE);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        if (record.key() == null || record.key().isBlank()) {
            refuse(record, "no_key", new IllegalArgumentException("a telemetry record without a worker id key"));
            return;
        }
        if (record.value() == null) {
            store.delete(record.key());
            fleet.remove(record.key());
            return;
        }
        WorkerTelemetry telemetry;
        try {
            telemetry = deserializer.deserialize(topic, record.value());
        } catch (RuntimeException e) {
            if (SchemaRegistryException.isOutage(e)) {
                skip("registry_outage", "telemetry of worker " + record.key() + " while the registry is unreachable: " + e.getMessage());
            } else {
                refuse(record, "undecodable", e);
            }
            return;
        }
        String problem = implausibility(telemetry, record.key(), limits);
        if (problem != null) {
            refuse(record, "implausible", new IllegalArgumentException("implausible telemetry: " + problem));
            return;
        }
        if (fleet.get(record.key()) == null && fleet.size() >= limits.maxWorkers()) {
            refuse(record, "too_many_workers", new IllegalArgumentException("the router keeps telemetry of " + fleet.size()
                    + " workers already, " + RouterConfig.TELEMETRY_MAX_WORKERS + " (" + limits.maxWorkers() + "); a new one is refused"));
            return;
        }
        long receivedAtMs = context.currentSystemTimeMs();
        long aheadMs = telemetry.getObservedAtMs() - receivedAtMs;
        if (aheadMs > limits.maxClockSkewMs()) {
            refuse(record, "clock_skew", new IllegalArgumentException("observedAtMs " + telemetry.getObservedAtMs() + " is " + aheadMs
                    + " ms ahead of the router's clock, more than " + RouterConfig.TELEMETRY_MAX_CLOCK_SKEW_MS + " ("
                    + limits.maxClockSkewMs() + "): the worker's clock is wrong or the record is forged"));
            return;
        }
        // silence is measured from when a record arrived: no stamp can keep a worker that stopped reporting fresh
        telemetry.setObservedAtMs(Math.min(telemetry.getObservedAtMs(), receivedAtMs));
        Long reportedLimit = telemetry.getRateLimitedUntilMs();
        if (reportedLimit != null && reportedLimit - receivedAtMs > limits.maxRateLimitMs()) {
            // one record must not cool a worker (or a shared region) for longer; a worker still limited says so again
            telemetry.setRateLimitedUntilMs(receivedAtMs + limits.maxRateLimitMs());
        }
        store.put(record.key(), record.value());
        fleet.put(Conversions.toSnapshot(telemetry));
        Long limitedUntil = telemetry.getRateLimitedUntilMs();
        if (limitedUntil != null && limitedUntil > receivedAtMs && regions.sharedRateLimit(telemetry.getRegion())
                && limitedUntil > cooldowns.regionCoolingUntil(telemetry.getRegion())) {
            cooldowns.coolRegion(telemetry.getRegion(), limitedUntil);
            metrics.regionCooled(telemetry.getRegion());
        }
    }

    private void refuse(Record<String, byte[]> record, String kind, RuntimeException error) {
        metrics.telemetrySkipped(kind);
        LOG.warn("skipped and dead-lettered a telemetry record (key {}): {}", record.key(), error.getMessage());
        deadLetters.refuse(record, context.recordMetadata(), topic, error, context.currentSystemTimeMs());
    }

    private void skip(String kind, String message) {
        metrics.telemetrySkipped(kind);
        LOG.warn("skipped {}", message);
    }

    /** Why a decoded record cannot describe a real worker, within {@code limits}; null if it can. */
    static String implausibility(WorkerTelemetry t, String key, TelemetryLimits limits) {
        if (!key.equals(t.getWorkerId())) {
            return "workerId '" + t.getWorkerId() + "' differs from the record key";
        }
        if (t.getObservedAtMs() <= 0) {
            return "observedAtMs " + t.getObservedAtMs() + " is not a time after the epoch";
        }
        if (t.getRegion() == null || t.getRegion().isBlank()) {
            return "no region";
        }
        if (t.getKvBlocksTotal() < 0 || t.getKvBlocksUsed() < 0) {
            return "negative KV capacity " + t.getKvBlocksTotal() + " or usage " + t.getKvBlocksUsed();
        }
        if (t.getKvBlocksTotal() > 0 && t.getKvBlocksUsed() > t.getKvBlocksTotal()) {
            return "KV blocks used " + t.getKvBlocksUsed() + " exceed total " + t.getKvBlocksTotal();
        }
        if (!(t.getKvUsage() >= 0.0 && t.getKvUsage() <= 1.0)) {
            return "kvUsage " + t.getKvUsage() + " outside [0, 1]";
        }
        if (!(t.getPrefixCacheHitRate() >= 0.0 && t.getPrefixCacheHitRate() <= 1.0)) {
            return "prefixCacheHitRate " + t.getPrefixCacheHitRate() + " outside [0, 1]";
        }
        if (t.getRunningRequests() < 0 || t.getWaitingRequests() < 0 || t.getRunningPrefill() < 0 || t.getRunningDecode() < 0
                || t.getQueuedPrefillTokens() < 0 || t.getQueuedPrefillAttention() < 0 || t.getOwedPrefillTokens() < 0
                || t.getOwedPrefillRequests() < 0 || t.getDecodingContextTokens() < 0) {
            return "negative request or token counts";
        }
        String requests = over(TelemetryLimits.MAX_REQUESTS, "runningRequests", t.getRunningRequests(), "waitingRequests",
                t.getWaitingRequests(), "runningPrefill", t.getRunningPrefill(), "runningDecode", t.getRunningDecode(),
                "maxRunningRequests", t.getMaxRunningRequests(), "owedPrefillRequests", t.getOwedPrefillRequests());
        if (requests != null) {
            return requests;
        }
        String tokens = over(TelemetryLimits.MAX_TOKENS, "queuedPrefillTokens", t.getQueuedPrefillTokens(), "owedPrefillTokens",
                t.getOwedPrefillTokens(), "decodingContextTokens", t.getDecodingContextTokens(), "kvBlocksTotal", t.getKvBlocksTotal());
        if (tokens != null) {
            return tokens;
        }
        if (t.getQueuedPrefillAttention() > TelemetryLimits.MAX_TOKEN_PAIRS) {
            return "queuedPrefillAttention " + t.getQueuedPrefillAttention() + " over " + TelemetryLimits.MAX_TOKEN_PAIRS;
        }
        if (t.getMaxRunningRequests() <= 0) {
            return "maxRunningRequests " + t.getMaxRunningRequests() + " is not positive";
        }
        if (!(t.getTokensPerSecond() >= 0.0 && t.getTokensPerSecond() <= TelemetryLimits.MAX_TOKENS_PER_SECOND)) {
            return "tokensPerSecond " + t.getTokensPerSecond() + " outside [0, " + TelemetryLimits.MAX_TOKENS_PER_SECOND + "]";
        }
        if (!(t.getRecentTtftMs() >= 0.0 && t.getRecentTtftMs() <= TelemetryLimits.MAX_LATENCY_MS)
                || !(t.getDecodeMsPerToken() >= 0.0 && t.getDecodeMsPerToken() <= TelemetryLimits.MAX_LATENCY_MS)) {
            return "recentTtftMs " + t.getRecentTtftMs() + " or decodeMsPerToken " + t.getDecodeMsPerToken() + " outside [0, "
                    + TelemetryLimits.MAX_LATENCY_MS + "]";
        }
        if (t.getOwnedPartitions().size() > limits.maxPartitions()) {
            return t.getOwnedPartitions().size() + " owned partitions, more than " + RouterConfig.DISPATCH_MAX_PARTITIONS + " ("
                    + limits.maxPartitions() + ")";
        }
        for (Integer p : t.getOwnedPartitions()) {
            if (p == null || p < 0) {
                return "negative partition in " + t.getOwnedPartitions();
            }
            if (p >= limits.maxPartitions()) {
                return "partition " + p + " at or past " + RouterConfig.DISPATCH_MAX_PARTITIONS + " (" + limits.maxPartitions()
                        + "): no dispatch topic has it";
            }
        }
        return null;
    }

    /** The first of the (name, value) pairs over {@code max}, described; null if none is. */
    private static String over(long max, Object... namesAndValues) {
        for (int i = 0; i < namesAndValues.length; i += 2) {
            long value = ((Number) namesAndValues[i + 1]).longValue();
            if (value > max) {
                return namesAndValues[i] + " " + value + " over " + max + ": no real server holds that much";
            }
        }
        return null;
    }
}
