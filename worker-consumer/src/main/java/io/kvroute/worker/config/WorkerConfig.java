package io.kvroute.worker.config;

import io.kvroute.platform.config.ConfigException;
import io.kvroute.platform.config.Settings;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.worker.engine.openai.OpenAiSettings;
import io.kvroute.worker.engine.sim.EngineLimits;
import io.kvroute.worker.engine.sim.KvBlockPool;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A worker's settings, read once from {@link Settings} and validated eagerly: a bad value fails
 * start-up with the key and the value in the message. Keys under {@value #KAFKA_PREFIX} pass
 * through to every Kafka client of the worker.
 *
 * <p>{@value #SIM_HOST_KV_BLOCKS} (default 0 = none) gives the simulated engine a host-DRAM prefix
 * tier of that many 16-token pages: prefix blocks evicted from the GPU stay there and are loaded
 * back over PCIe instead of being recomputed. For Llama-3.1-8B (128 KiB of KV per token), 65,536
 * pages ≈ 1M tokens ≈ 128 GiB of host memory per GPU.
 *
 * <p>{@value #ENGINE} {@code =openai} drives an OpenAI-compatible server at {@value #OPENAI_ENDPOINT}
 * instead of simulating a GPU; {@link #openai()} is then set (null for the simulator). The API key
 * ({@value #OPENAI_API_KEY}) never appears in a message.
 */
public record WorkerConfig(String bootstrapServers, String schemaRegistryUrl, String topicPrefix, String workerId,
                           String region, List<String> models, String engine, long networkDelayMs, int kvBlocks,
                           int hostKvBlocks, int maxRunning, int maxBatchedTokens, double speed, int chunkTokens,
                           long telemetryIntervalMs, int maxWaiting, long commitIntervalMs, String metricsHost, int metricsPort,
                           Map<String, Object> kafka, OpenAiSettings openai, long cancellationLookbackMs,
                           long replacementCheckAfterMs, int retryMax, long retryBackoffMs,
                           long poolRequestsPerMinute, long poolTokensPerMinute, String pool) {
    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
    public static final String TOPIC_PREFIX = "kvroute.topic.prefix";
    public static final String WORKER_ID = "worker.id";
    public static final String REGION = "worker.region";
    public static final String MODELS = "worker.models";
    public static final String ENGINE = "worker.engine";
    public static final String NETWORK_DELAY_MS = "worker.network.delay.ms";
    public static final String SIM_KV_BLOCKS = "worker.sim.kv.blocks";
    public static final String SIM_HOST_KV_BLOCKS = "worker.sim.host.kv.blocks";
    public static final String SIM_MAX_RUNNING = "worker.sim.max.running";
    public static final String SIM_MAX_BATCHED_TOKENS = "worker.sim.max.batched.tokens";
    public static final String SIM_SPEED = "worker.sim.speed";
    public static final String CHUNK_TOKENS = "worker.chunk.tokens";
    public static final String TELEMETRY_INTERVAL_MS = "worker.telemetry.interval.ms";
    public static final String MAX_WAITING = "worker.max.waiting";
    public static final String COMMIT_INTERVAL_MS = "worker.commit.interval.ms";
    public static final String METRICS_HOST = "worker.metrics.host";
    public static final String METRICS_PORT = "worker.metrics.port";
    public static final String OPENAI_ENDPOINT = "worker.openai.endpoint";
    public static final String OPENAI_MODEL = "worker.openai.model";
    public static final String OPENAI_API_KEY = "worker.openai.api.key";
    public static final String OPENAI_MAX_CONCURRENCY = "worker.openai.max.concurrency";
    public static final String OPENAI_REQUEST_TIMEOUT_MS = "worker.openai.request.timeout.ms";
    public static final String OPENAI_CONNECT_TIMEOUT_MS = "worker.openai.connect.timeout.ms";
    public static final String OPENAI_METRICS_INTERVAL_MS = "worker.openai.metrics.interval.ms";
    public static final String OPENAI_RATE_LIMIT_COOLDOWN_MS = "worker.openai.rate.limit.cooldown.ms";
    public static final String CANCELLATION_LOOKBACK_MS = "worker.cancellation.lookback.ms";
    public static final String REPLACEMENT_CHECK_AFTER_MS = "worker.replacement.check.after.ms";
    /** Retries on this worker of a transient inference-server failure (broken stream, 5xx, timeout, refused). */
    public static final String RETRY_MAX = "worker.retry.max";
    public static final String RETRY_BACKOFF_MS = "worker.retry.backoff.ms";
    /**
     * The quota of the pool behind this worker (a provider account, a shared GPU pool): requests
     * and tokens (prompt + max output) per minute, 0 for none. Beyond it requests wait in the
     * worker and its telemetry reports it rate limited, so the router sends new work elsewhere.
     */
    public static final String POOL_REQUESTS_PER_MINUTE = "worker.pool.requests.per.minute";
    public static final String POOL_TOKENS_PER_MINUTE = "worker.pool.tokens.per.minute";
    /**
     * The worker's pool as its telemetry names it: the model and hardware class behind it (e.g. llama-8b-h100).
     * Routers learn engine speed per pool, so workers of one pool should run alike. Default: the simulated GPU's
     * profile, or the served model's name for an OpenAI-compatible server.
     */
    public static final String POOL = "worker.pool";
    /** The simulated GPU's engine profile, its pool by default. */
    public static final String SIM_POOL = "llama-8b-h100";
    public static final String KAFKA_PREFIX = "kafka.";

    /** Upper bound of {@code kafka.max.poll.records}, so the finished-offsets metadata stays under Kafka's limit. */
    public static final int MAX_POLL_RECORDS_LIMIT = 250;

    public static final String DEFAULT_TOPIC_PREFIX = KvrouteTopics.DEFAULT_PREFIX;
    public static final String DEFAULT_MODELS = "llama-3.1-8b";
    public static final String ENGINE_SIM = "sim";
    public static final String ENGINE_OPENAI = "openai";
    public static final String DEFAULT_ENGINE = ENGINE_SIM;
    public static final int DEFAULT_OPENAI_MAX_CONCURRENCY = OpenAiSettings.DEFAULT_MAX_CONCURRENCY;
    public static final long DEFAULT_OPENAI_REQUEST_TIMEOUT_MS = OpenAiSettings.DEFAULT_REQUEST_TIMEOUT_MS;
    public static final long DEFAULT_OPENAI_CONNECT_TIMEOUT_MS = OpenAiSettings.DEFAULT_CONNECT_TIMEOUT_MS;
    public static final long DEFAULT_OPENAI_METRICS_INTERVAL_MS = OpenAiSettings.DEFAULT_METRICS_INTERVAL_MS;
    public static final long DEFAULT_OPENAI_RATE_LIMIT_COOLDOWN_MS = OpenAiSettings.DEFAULT_RATE_LIMIT_COOLDOWN_MS;
    public static final long DEFAULT_NETWORK_DELAY_MS = 0;
    public static final int DEFAULT_KV_BLOCKS = KvBlockPool.DEFAULT_CAPACITY_BLOCKS;
    public static final int DEFAULT_HOST_KV_BLOCKS = EngineLimits.DEFAULT_HOST_KV_BLOCKS;
    public static final int DEFAULT_MAX_RUNNING = EngineLimits.DEFAULT_MAX_RUNNING;
    public static final int DEFAULT_MAX_BATCHED_TOKENS = EngineLimits.DEFAULT_MAX_BATCHED_TOKENS;
    public static final double DEFAULT_SPEED = 1.0;
    public static final int DEFAULT_CHUNK_TOKENS = 16;
    public static final long DEFAULT_TELEMETRY_INTERVAL_MS = 250;
    public static final int DEFAULT_MAX_WAITING = 512;
    public static final long DEFAULT_COMMIT_INTERVAL_MS = 25;
    /** Loopback unless told otherwise: metrics are not for the open network by default. */
    public static final String DEFAULT_METRICS_HOST = "127.0.0.1";
    public static final int DEFAULT_METRICS_PORT = -1;
    /**
     * At start-up a worker reads back the cancels of this last stretch of time, so a cancel written
     * before it started (for a request its partitions still hold, whose previous owner died) is not
     * missed; 0 reads only new cancels. At most the cancellations topic's retention (7 days).
     */
    public static final long DEFAULT_CANCELLATION_LOOKBACK_MS = 600_000;
    public static final long MAX_CANCELLATION_LOOKBACK_MS = 604_800_000;
    /**
     * A dispatch record that waited longer than this, or a commit after the loop was frozen or
     * failing for longer, first makes sure no re-placement marker is pending (see DispatchConsumer).
     * Keep it below the router's {@code router.replace.patience.ms} (default 30 s), by a margin for
     * clock skew between router and worker; lower costs a short wait per poll during a backlog.
     */
    public static final long DEFAULT_REPLACEMENT_CHECK_AFTER_MS = 20_000;
    public static final int DEFAULT_RETRY_MAX = 2;
    public static final long DEFAULT_RETRY_BACKOFF_MS = 500;
    /** No pool quota: the worker sends whatever it is given. */
    public static final long DEFAULT_POOL_REQUESTS_PER_MINUTE = 0;
    public static final long DEFAULT_POOL_TOKENS_PER_MINUTE = 0;

    /** Every default, for the lowest layer of {@link Settings}. */
    public static Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put(TOPIC_PREFIX, DEFAULT_TOPIC_PREFIX);
        d.put(MODELS, DEFAULT_MODELS);
        d.put(ENGINE, DEFAULT_ENGINE);
        d.put(NETWORK_DELAY_MS, Long.toString(DEFAULT_NETWORK_DELAY_MS));
        d.put(SIM_KV_BLOCKS, Integer.toString(DEFAULT_KV_BLOCKS));
        d.put(SIM_HOST_KV_BLOCKS, Integer.toString(DEFAULT_HOST_KV_BLOCKS));
        d.put(SIM_MAX_RUNNING, Integer.toString(DEFAULT_MAX_RUNNING));
        d.put(SIM_MAX_BATCHED_TOKENS, Integer.toString(DEFAULT_MAX_BATCHED_TOKENS));
        d.put(SIM_SPEED, Double.toString(DEFAULT_SPEED));
        d.put(CHUNK_TOKENS, Integer.toString(DEFAULT_CHUNK_TOKENS));
        d.put(TELEMETRY_INTERVAL_MS, Long.toString(DEFAULT_TELEMETRY_INTERVAL_MS));
        d.put(MAX_WAITING, Integer.toString(DEFAULT_MAX_WAITING));
        d.put(COMMIT_INTERVAL_MS, Long.toString(DEFAULT_COMMIT_INTERVAL_MS));
        d.put(METRICS_HOST, DEFAULT_METRICS_HOST);
        d.put(METRICS_PORT, Integer.toString(DEFAULT_METRICS_PORT));
        d.put(CANCELLATION_LOOKBACK_MS, Long.toString(DEFAULT_CANCELLATION_LOOKBACK_MS));
        d.put(REPLACEMENT_CHECK_AFTER_MS, Long.toString(DEFAULT_REPLACEMENT_CHECK_AFTER_MS));
        d.put(RETRY_MAX, Integer.toString(DEFAULT_RETRY_MAX));
        d.put(RETRY_BACKOFF_MS, Long.toString(DEFAULT_RETRY_BACKOFF_MS));
        d.put(POOL_REQUESTS_PER_MINUTE, Long.toString(DEFAULT_POOL_REQUESTS_PER_MINUTE));
        d.put(POOL_TOKENS_PER_MINUTE, Long.toString(DEFAULT_POOL_TOKENS_PER_MINUTE));
        d.put(OPENAI_MAX_CONCURRENCY, Integer.toString(DEFAULT_OPENAI_MAX_CONCURRENCY));
        d.put(OPENAI_REQUEST_TIMEOUT_MS, Long.toString(DEFAULT_OPENAI_REQUEST_TIMEOUT_MS));
        d.put(OPENAI_CONNECT_TIMEOUT_MS, Long.toString(DEFAULT_OPENAI_CONNECT_TIMEOUT_MS));
        d.put(OPENAI_METRICS_INTERVAL_MS, Long.toString(DEFAULT_OPENAI_METRICS_INTERVAL_MS));
        d.put(OPENAI_RATE_LIMIT_COOLDOWN_MS, Long.toString(DEFAULT_OPENAI_RATE_LIMIT_COOLDOWN_MS));
        return d;
    }

    /** Reads and validates; missing keys take their defaults. */
    public static WorkerConfig from(Settings given) {
        given.requireKnownKeys("worker.", WorkerConfig.class);
        Settings s = Settings.builder().defaults(defaults()).overrides(given.asMap()).build();
        String prefix = s.matching(TOPIC_PREFIX, v -> v.matches("[A-Za-z0-9._-]+"), "must be letters, digits, '.', '_' or '-'");
        String region = s.matching(REGION, v -> v.matches("[a-z0-9][a-z0-9-]{0,62}"), "must be lower-case letters, digits and '-'");
        String workerId = s.matching(WORKER_ID, v -> v.matches("[A-Za-z0-9._-]+"), "must be letters, digits, '.', '_' or '-'");
        List<String> models = s.list(MODELS);
        if (models.isEmpty()) {
            throw new ConfigException(MODELS, s.string(MODELS, ""), "must name at least one model");
        }
        String engine = s.oneOf(ENGINE, List.of(ENGINE_SIM, ENGINE_OPENAI));
        OpenAiSettings openai = ENGINE_OPENAI.equals(engine) ? openAi(s, models) : null;
        if (s.has(KAFKA_PREFIX + "max.poll.records")) {
            // one poll can overshoot a partition's tracked span by this much; the span bounds the commit metadata
            s.intValue(KAFKA_PREFIX + "max.poll.records", 1, MAX_POLL_RECORDS_LIMIT);
        }
        return new WorkerConfig(
                s.string(BOOTSTRAP_SERVERS),
                s.string(SCHEMA_REGISTRY_URL),
                prefix, workerId, region, models, engine,
                s.longValue(NETWORK_DELAY_MS, 0, 60_000),
                s.intValue(SIM_KV_BLOCKS, 16, 100_000_000),
                s.intValue(SIM_HOST_KV_BLOCKS, 0, 100_000_000),
                s.intValue(SIM_MAX_RUNNING, 1, 65_536),
                s.intValue(SIM_MAX_BATCHED_TOKENS, 1, 1_048_576),
                s.doubleValue(SIM_SPEED, 0.001, 1_000_000),
                s.intValue(CHUNK_TOKENS, 1, 100_000),
                s.longValue(TELEMETRY_INTERVAL_MS, 10, 600_000),
                s.intValue(MAX_WAITING, 1, 1_000_000),
                s.longValue(COMMIT_INTERVAL_MS, 1, 10_000),
                s.string(METRICS_HOST),
                s.intValue(METRICS_PORT, -1, 65_535),
                Map.copyOf(s.withPrefix(KAFKA_PREFIX)), openai,
                s.longValue(CANCELLATION_LOOKBACK_MS, 0, MAX_CANCELLATION_LOOKBACK_MS),
                s.longValue(REPLACEMENT_CHECK_AFTER_MS, 1, 3_600_000),
                s.intValue(RETRY_MAX, 0, 10),
                s.longValue(RETRY_BACKOFF_MS, 1, 600_000),
                s.longValue(POOL_REQUESTS_PER_MINUTE, 0, 1_000_000_000L),
                s.longValue(POOL_TOKENS_PER_MINUTE, 0, Long.MAX_VALUE / 2),
                s.has(POOL) ? s.matching(POOL, v -> v.matches("[A-Za-z0-9._:/@-]{1,128}"),
                        "must be 1-128 letters, digits or '.', '_', ':', '/', '@', '-'")
                        : openai != null ? openai.model() : SIM_POOL);
    }

    private static OpenAiSettings openAi(Settings s, List<String> models) {
        if (!s.has(OPENAI_ENDPOINT)) {
            throw new ConfigException(OPENAI_ENDPOINT, "", "is required when " + ENGINE + "=" + ENGINE_OPENAI);
        }
        String endpoint = s.string(OPENAI_ENDPOINT);
        URI uri;
        try {
            uri = new URI(endpoint);
        } catch (URISyntaxException e) {
            throw new ConfigException(OPENAI_ENDPOINT, endpoint, "is not a URL: " + e.getMessage());
        }
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
            throw new ConfigException(OPENAI_ENDPOINT, endpoint, "must be an http:// or https:// URL with a host");
        }
        String model = s.string(OPENAI_MODEL, models.get(0));
        if (model.isBlank()) {
            throw new ConfigException(OPENAI_MODEL, model, "must not be blank");
        }
        String apiKey = s.string(OPENAI_API_KEY, "");
        return new OpenAiSettings(uri, model, apiKey.isBlank() ? null : apiKey.strip(),
                s.intValue(OPENAI_MAX_CONCURRENCY, 1, 100_000),
                s.longValue(OPENAI_REQUEST_TIMEOUT_MS, 1, 86_400_000),
                s.longValue(OPENAI_CONNECT_TIMEOUT_MS, 1, 600_000),
                s.longValue(OPENAI_METRICS_INTERVAL_MS, 0, 3_600_000),
                s.longValue(OPENAI_RATE_LIMIT_COOLDOWN_MS, 0, 3_600_000));
    }

    public KvrouteTopics topics() {
        return new KvrouteTopics(topicPrefix, KvrouteTopics.DEFAULT_PARTITIONS);
    }

    /** The consumer group of this worker's region: {@code <prefix>.worker.<region>}. */
    public String groupId() {
        return topicPrefix + ".worker." + region;
    }

    /** Stable across restarts, so a restarted worker fences its previous incarnation's transactions. */
    public String transactionalId() {
        return topicPrefix + "-worker-" + workerId;
    }

    public EngineLimits engineLimits() {
        return new EngineLimits(kvBlocks, maxRunning, maxBatchedTokens, hostKvBlocks);
    }
}
