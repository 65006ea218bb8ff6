package io.kvroute.worker.config;

import io.kvroute.platform.config.ConfigException;
import io.kvroute.platform.config.RegistrySettings;
import io.kvroute.platform.config.SettingDefs;
import io.kvroute.platform.config.Settings;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.topics.TenantTopics;
import io.kvroute.worker.engine.GpuSlots;
import io.kvroute.worker.engine.openai.OpenAiSettings;
import io.kvroute.worker.engine.sim.EngineLimits;
import io.kvroute.worker.engine.sim.KvBlockPool;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
                           long poolRequestsPerMinute, long poolTokensPerMinute, String pool, TenantTopics tenantTopics,
                           int gpus, List<URI> openaiEndpoints) {
    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
    public static final String TOPIC_PREFIX = "kvroute.topic.prefix";
    public static final String TENANT_TOPICS = TenantTopics.SETTING;
    public static final String WORKER_ID = "worker.id";
    public static final String GPUS = "worker.gpus";
    public static final int MAX_GPUS = 64;
    private static final Pattern SLOT_ID = Pattern.compile("(.+)-g(\\d+)");
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
    /** The request body field a request's cache salt goes in (vLLM: {@code cache_salt}); empty sends none. */
    public static final String OPENAI_CACHE_SALT_FIELD = "worker.openai.cache.salt.field";
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
    public static final String DEFAULT_OPENAI_CACHE_SALT_FIELD = OpenAiSettings.DEFAULT_CACHE_SALT_FIELD;
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


    private static final String NAME_CHARS = "letters, digits, '.', '_' or '-'";

    /**
     * Every worker setting: type, valid values, default and what it does. {@link #from} reads ranges
     * and enumerations from here, {@link #defaults()} is built from it, and {@code docs/settings.md}
     * is generated from it.
     */
    public static final SettingDefs DEFINITIONS = SettingDefs.builder()
            .string(BOOTSTRAP_SERVERS, null, "host:port,...", "The Kafka cluster the worker reads dispatches from and writes results to.")
            .string(SCHEMA_REGISTRY_URL, null, "http:// or https:// URL", "The schema registry (Confluent API).")
            .defineAll(RegistrySettings.DEFINITIONS)
            .string(TOPIC_PREFIX, DEFAULT_TOPIC_PREFIX, NAME_CHARS, "Topics are named `<prefix>.<name>`; must match the router's.")
            .oneOf(TENANT_TOPICS, TenantTopics.NAMES, TenantTopics.SHARED.setting(),
                    "`per-tenant`: results go to `<prefix>.responses.<tenant>`, the tenant the router gave the request; `shared`: to `<prefix>.responses`. Must match the router's.")
            .string(WORKER_ID, null, NAME_CHARS,
                    "This worker's id, stable across restarts: its transactional id, so a restart fences the previous incarnation.")
            .intRange(GPUS, 1, MAX_GPUS, 1,
                    "GPU slots this process serves, an engine each, from its dispatch partitions (each slot is a worker to the router, id `<worker.id>-g<i>` when more than one): a node's GPUs share one dispatch partition, which keeps the router's transactions small.")
            .string(REGION, null, "lower-case letters, digits and '-'", "This worker's region: it consumes `<prefix>.dispatch.<region>` in group `<prefix>.worker.<region>`.")
            .list(MODELS, DEFAULT_MODELS, "comma-separated names", "The models this worker advertises in its telemetry.")
            .oneOf(ENGINE, List.of(ENGINE_SIM, ENGINE_OPENAI), DEFAULT_ENGINE,
                    "sim runs a simulated GPU; openai drives an OpenAI-compatible server (vLLM, SGLang, llama.cpp).")
            .stringWorkedOut(POOL, "the simulated profile (`" + SIM_POOL + "`), or the served model", "1-128 letters, digits or '.', '_', ':', '/', '@', '-'",
                    "The model and hardware class the telemetry names; routers learn engine speed per pool, so one pool's workers should run alike.")
            .longRange(NETWORK_DELAY_MS, 0, 60_000, DEFAULT_NETWORK_DELAY_MS, "Simulated one-way network delay added to every request (local stacks).")
            .intRange(SIM_KV_BLOCKS, 16, 100_000_000, DEFAULT_KV_BLOCKS, "Simulated GPU: KV pages of 16 tokens (26,000 is Llama-3.1-8B on one H100).")
            .intRange(SIM_HOST_KV_BLOCKS, 0, 100_000_000, DEFAULT_HOST_KV_BLOCKS,
                    "Simulated GPU: host-DRAM prefix tier in 16-token pages; 0 = none.")
            .intRange(SIM_MAX_RUNNING, 1, 65_536, DEFAULT_MAX_RUNNING, "Simulated GPU: sequences in the running batch at most.")
            .intRange(SIM_MAX_BATCHED_TOKENS, 1, 1_048_576, DEFAULT_MAX_BATCHED_TOKENS, "Simulated GPU: tokens per engine step at most.")
            .doubleRange(SIM_SPEED, 0.001, 1_000_000, DEFAULT_SPEED, "Simulated GPU: run faster (> 1) or slower than real time.")
            .intRange(CHUNK_TOKENS, 1, 100_000, DEFAULT_CHUNK_TOKENS, "Tokens per streamed response chunk.")
            .longRange(TELEMETRY_INTERVAL_MS, 10, 600_000, DEFAULT_TELEMETRY_INTERVAL_MS, "Telemetry period; a significant change is also sent at once.")
            .intRange(MAX_WAITING, 1, 1_000_000, DEFAULT_MAX_WAITING, "Requests queued on a GPU slot at most before the worker's consumer pauses (with several slots, past it on any one pauses their shared partition).")
            .longRange(COMMIT_INTERVAL_MS, 1, 10_000, DEFAULT_COMMIT_INTERVAL_MS, "How often the worker commits its transaction of results and offsets.")
            .string(METRICS_HOST, DEFAULT_METRICS_HOST, "a host name or address", "Address the metrics endpoint listens on.")
            .intRange(METRICS_PORT, -1, 65_535, DEFAULT_METRICS_PORT, "Port of the Prometheus /metrics endpoint; -1 turns it off.")
            .longRange(CANCELLATION_LOOKBACK_MS, 0, MAX_CANCELLATION_LOOKBACK_MS, DEFAULT_CANCELLATION_LOOKBACK_MS,
                    "At start-up the worker reads back the cancels of this last stretch; 0 reads only new ones.")
            .longRange(REPLACEMENT_CHECK_AFTER_MS, 1, 3_600_000, DEFAULT_REPLACEMENT_CHECK_AFTER_MS,
                    "A dispatch older than this, or a commit after a freeze this long, first waits until every re-placement marker written before now is read; keep below router.replace.patience.ms.")
            .intRange(RETRY_MAX, 0, 10, DEFAULT_RETRY_MAX, "Retries on this worker of a transient server failure (broken stream, 5xx, timeout, refused).")
            .longRange(RETRY_BACKOFF_MS, 1, 600_000, DEFAULT_RETRY_BACKOFF_MS, "Wait before the first retry; it doubles for each next one.")
            .longRange(POOL_REQUESTS_PER_MINUTE, 0, 1_000_000_000L, DEFAULT_POOL_REQUESTS_PER_MINUTE,
                    "Requests per minute the pool behind each GPU slot of this worker allows; beyond it requests wait and telemetry reports it rate limited; 0 = none.")
            .longRange(POOL_TOKENS_PER_MINUTE, 0, Long.MAX_VALUE / 2, DEFAULT_POOL_TOKENS_PER_MINUTE,
                    "Tokens (prompt + max output) per minute the pool behind each GPU slot allows; 0 = none.")
            .string(OPENAI_ENDPOINT, null, "http:// or https:// URL with a host; one per GPU slot, comma-separated, with worker.gpus > 1",
                    "With worker.engine=openai (then required): the server's base URL, or each GPU slot's server in slot order; a trailing /v1 is dropped.")
            .stringWorkedOut(OPENAI_MODEL, "the first of worker.models", "not blank", "The model name sent to the server with every request.")
            .password(OPENAI_API_KEY, "Sent to the server as a bearer token; never logged or shown.")
            .intRange(OPENAI_MAX_CONCURRENCY, 1, 100_000, DEFAULT_OPENAI_MAX_CONCURRENCY,
                    "Requests in flight to the server at most (its batch limit for routing); more wait in the worker.")
            .longRange(OPENAI_REQUEST_TIMEOUT_MS, 1, 86_400_000, DEFAULT_OPENAI_REQUEST_TIMEOUT_MS,
                    "A request not finished streaming by then fails (and is retried as a transient failure).")
            .longRange(OPENAI_CONNECT_TIMEOUT_MS, 1, 600_000, DEFAULT_OPENAI_CONNECT_TIMEOUT_MS, "TCP connect timeout to the server.")
            .longRange(OPENAI_METRICS_INTERVAL_MS, 0, 3_600_000, DEFAULT_OPENAI_METRICS_INTERVAL_MS,
                    "How often the server's /metrics is scraped into telemetry; 0 = never.")
            .longRange(OPENAI_RATE_LIMIT_COOLDOWN_MS, 0, 3_600_000, DEFAULT_OPENAI_RATE_LIMIT_COOLDOWN_MS,
                    "How long a 429 without Retry-After keeps new work off this worker.")
            .string(OPENAI_CACHE_SALT_FIELD, DEFAULT_OPENAI_CACHE_SALT_FIELD, "a JSON field name (letters, digits, '_', '-', '.'), or empty",
                    "The request body field a request's cache salt is sent in (vLLM 0.9+ isolates its prefix cache by it); empty sends none, for servers that refuse unknown fields.")
            .build();

    /** Every default, for the lowest layer of {@link Settings}. */
    public static Map<String, String> defaults() {
        return new LinkedHashMap<>(DEFINITIONS.defaults());
    }

    /** Reads and validates; missing keys take their defaults. */
    public static WorkerConfig from(Settings given) {
        given.requireKnownKeys("worker.", WorkerConfig.class);
        Settings s = Settings.builder().defaults(defaults()).overrides(given.asMap()).build();
        String prefix = s.matching(TOPIC_PREFIX, v -> v.matches("[A-Za-z0-9._-]+"), "must be letters, digits, '.', '_' or '-'");
        RegistrySettings.check(s.asMap());
        String region = s.matching(REGION, v -> v.matches("[a-z0-9][a-z0-9-]{0,62}"), "must be lower-case letters, digits and '-'");
        String workerId = s.matching(WORKER_ID, v -> v.matches("[A-Za-z0-9._-]+"), "must be letters, digits, '.', '_' or '-'");
        List<String> models = s.list(MODELS);
        if (models.isEmpty()) {
            throw new ConfigException(MODELS, s.string(MODELS, ""), "must name at least one model");
        }
        String engine = DEFINITIONS.oneOf(s, ENGINE);
        int gpus = DEFINITIONS.intValue(s, GPUS);
        List<URI> openaiEndpoints = ENGINE_OPENAI.equals(engine) ? openAiEndpoints(s, gpus) : List.of();
        OpenAiSettings openai = ENGINE_OPENAI.equals(engine) ? openAi(s, models, openaiEndpoints.get(0)) : null;
        if (s.has(KAFKA_PREFIX + "max.poll.records")) {
            // one poll can overshoot a partition's tracked span by this much; the span bounds the commit metadata
            s.intValue(KAFKA_PREFIX + "max.poll.records", 1, MAX_POLL_RECORDS_LIMIT);
        }
        return new WorkerConfig(
                s.string(BOOTSTRAP_SERVERS),
                s.string(SCHEMA_REGISTRY_URL),
                prefix, workerId, region, models, engine,
                DEFINITIONS.longValue(s, NETWORK_DELAY_MS),
                DEFINITIONS.intValue(s, SIM_KV_BLOCKS),
                DEFINITIONS.intValue(s, SIM_HOST_KV_BLOCKS),
                DEFINITIONS.intValue(s, SIM_MAX_RUNNING),
                DEFINITIONS.intValue(s, SIM_MAX_BATCHED_TOKENS),
                DEFINITIONS.doubleValue(s, SIM_SPEED),
                DEFINITIONS.intValue(s, CHUNK_TOKENS),
                DEFINITIONS.longValue(s, TELEMETRY_INTERVAL_MS),
                DEFINITIONS.intValue(s, MAX_WAITING),
                DEFINITIONS.longValue(s, COMMIT_INTERVAL_MS),
                s.string(METRICS_HOST),
                DEFINITIONS.intValue(s, METRICS_PORT),
                Map.copyOf(s.withPrefix(KAFKA_PREFIX)), openai,
                DEFINITIONS.longValue(s, CANCELLATION_LOOKBACK_MS),
                DEFINITIONS.longValue(s, REPLACEMENT_CHECK_AFTER_MS),
                DEFINITIONS.intValue(s, RETRY_MAX),
                DEFINITIONS.longValue(s, RETRY_BACKOFF_MS),
                DEFINITIONS.longValue(s, POOL_REQUESTS_PER_MINUTE),
                DEFINITIONS.longValue(s, POOL_TOKENS_PER_MINUTE),
                s.has(POOL) ? s.matching(POOL, v -> v.matches("[A-Za-z0-9._:/@-]{1,128}"),
                        "must be 1-128 letters, digits or '.', '_', ':', '/', '@', '-'")
                        : openai != null ? openai.model() : SIM_POOL,
                TenantTopics.of(DEFINITIONS.oneOf(s, TENANT_TOPICS)),
                gpus, openaiEndpoints);
    }

    /** {@value #OPENAI_ENDPOINT}: a server per GPU slot, so exactly {@value #GPUS} URLs. */
    private static List<URI> openAiEndpoints(Settings s, int gpus) {
        if (!s.has(OPENAI_ENDPOINT)) {
            throw new ConfigException(OPENAI_ENDPOINT, "", "is required when " + ENGINE + "=" + ENGINE_OPENAI);
        }
        String given = s.string(OPENAI_ENDPOINT);
        List<URI> endpoints = new ArrayList<>();
        for (String endpoint : given.split(",", -1)) {
            endpoint = endpoint.strip();
            URI uri;
            try {
                uri = new URI(endpoint);
            } catch (URISyntaxException e) {
                throw new ConfigException(OPENAI_ENDPOINT, endpoint, "is not a URL: " + e.getMessage());
            }
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw new ConfigException(OPENAI_ENDPOINT, endpoint, "must be an http:// or https:// URL with a host");
            }
            endpoints.add(uri);
        }
        if (endpoints.size() != gpus) {
            throw new ConfigException(OPENAI_ENDPOINT, given, "names " + endpoints.size() + " server(s) but " + GPUS + " is " + gpus
                    + ": give one URL per GPU slot");
        }
        return List.copyOf(endpoints);
    }

    /** The OpenAI-compatible server of GPU slot {@code gpu} (0-based), or null for the simulator. */
    public OpenAiSettings openaiOf(int gpu) {
        return openai == null ? null : openai.withEndpoint(openaiEndpoints.get(gpu));
    }

    /** The worker ids of this process's GPU slots ({@link GpuSlots#slotIds}). */
    public List<String> slotIds() {
        return GpuSlots.slotIds(workerId, gpus);
    }

    /**
     * A warning when {@code worker.id} reads like a GPU slot's id ({@code <id>-g<i>}): a process named by the part
     * before it with {@code worker.gpus} above that index would publish telemetry under the same id, and the router
     * would take the two for one worker. Not refused, as it only bites when such a process runs.
     */
    public Optional<String> slotIdClash() {
        Matcher slot = SLOT_ID.matcher(workerId);
        if (!slot.matches()) {
            return Optional.empty();
        }
        return Optional.of(WORKER_ID + " '" + workerId + "' ends like a GPU slot id: a worker '" + slot.group(1) + "' with "
                + GPUS + " above " + slot.group(2) + " would publish a slot '" + workerId + "' too, and the router would take the "
                + "two for one worker; name workers so that none ends in -g<digits>");
    }

    private static OpenAiSettings openAi(Settings s, List<String> models, URI uri) {
        String model = s.string(OPENAI_MODEL, models.get(0));
        if (model.isBlank()) {
            throw new ConfigException(OPENAI_MODEL, model, "must not be blank");
        }
        // the default layers "cache_salt" under the given settings; a given empty value means: send none
        String cacheSaltField = s.has(OPENAI_CACHE_SALT_FIELD)
                ? s.matching(OPENAI_CACHE_SALT_FIELD,
                        v -> v.matches(OpenAiSettings.CACHE_SALT_FIELD_PATTERN) && !OpenAiSettings.BODY_FIELDS.contains(v),
                        "must be up to 64 letters, digits, '_', '-' or '.', and none of the body's own fields "
                                + new TreeSet<>(OpenAiSettings.BODY_FIELDS))
                : "";
        String apiKey = s.string(OPENAI_API_KEY, "");
        return new OpenAiSettings(uri, model, apiKey.isBlank() ? null : apiKey.strip(),
                DEFINITIONS.intValue(s, OPENAI_MAX_CONCURRENCY),
                DEFINITIONS.longValue(s, OPENAI_REQUEST_TIMEOUT_MS),
                DEFINITIONS.longValue(s, OPENAI_CONNECT_TIMEOUT_MS),
                DEFINITIONS.longValue(s, OPENAI_METRICS_INTERVAL_MS),
                DEFINITIONS.longValue(s, OPENAI_RATE_LIMIT_COOLDOWN_MS),
                cacheSaltField);
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
