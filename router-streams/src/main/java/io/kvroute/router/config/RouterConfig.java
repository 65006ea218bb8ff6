package io.kvroute.router.config;

import io.kvroute.platform.config.ConfigException;
import io.kvroute.platform.config.RegistrySettings;
import io.kvroute.platform.config.SettingDefs;
import io.kvroute.platform.config.Settings;
import io.kvroute.router.admission.RequestValidator;
import io.kvroute.router.errors.DeadLetteringProcessingHandler;
import io.kvroute.router.errors.DeadLetteringProductionHandler;
import io.kvroute.router.errors.DeadLetters;
import io.kvroute.router.routing.Policies;
import io.kvroute.router.routing.RegionCatalog;
import io.kvroute.router.routing.RegionProfile;
import io.kvroute.router.routing.Residency;
import io.kvroute.router.routing.quota.QuotaLimits;
import io.kvroute.router.routing.RoutingSettings;
import io.kvroute.router.routing.TtftModel;
import io.kvroute.schemas.serde.SerdeConfig;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.topics.TenantTopics;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The router's immutable configuration, built from {@link Settings} with every value validated
 * up front: a bad value fails start-up with a {@link ConfigException} naming key and value.
 * Kafka Streams settings pass through under {@value #KAFKA_PREFIX}; the keys the router owns
 * (application id, bootstrap servers, {@code processing.guarantee = exactly_once_v2}) cannot be
 * overridden that way.
 */
public final class RouterConfig {
    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String SCHEMA_REGISTRY_URL = SerdeConfig.SCHEMA_REGISTRY_URL;
    public static final String TOPIC_PREFIX = "kvroute.topic.prefix";
    public static final String TENANT_TOPICS = TenantTopics.SETTING;
    public static final String APPLICATION_ID = "router.application.id";
    public static final String POLICY = "router.policy";
    public static final String TELEMETRY_TTL_MS = "router.telemetry.ttl.ms";
    /** Telemetry observed further ahead of the router's clock than this is refused. */
    public static final String TELEMETRY_MAX_CLOCK_SKEW_MS = "router.telemetry.max.clock.skew.ms";
    /** The furthest ahead a telemetry record's rateLimitedUntilMs counts. */
    public static final String TELEMETRY_MAX_RATE_LIMIT_MS = "router.telemetry.max.rate.limit.ms";
    public static final String TELEMETRY_MAX_WORKERS = "router.telemetry.max.workers";
    /** Telemetry owning a partition at or past this is refused: no dispatch topic has it. */
    public static final String DISPATCH_MAX_PARTITIONS = "router.dispatch.max.partitions";
    public static final String REGIONS = "router.regions";
    public static final String MODELS = "router.models";
    public static final String MAX_PROMPT_TOKENS = "router.max.prompt.tokens";
    public static final String MAX_MESSAGES = "router.max.messages";
    public static final String MAX_STOP_STRINGS = "router.max.stop.strings";
    public static final String MAX_PREFIX_HASHES = "router.max.prefix.hashes";
    public static final String COMMIT_INTERVAL_MS = "router.commit.interval.ms";
    public static final String COMMIT_INTERVAL_BACKLOG_MS = "router.commit.interval.backlog.ms";
    public static final String COMMIT_BACKLOG_AFTER_MS = "router.commit.backlog.after.ms";
    public static final String STATE_DIR = "router.state.dir";
    public static final String METRICS_PORT = "router.metrics.port";
    public static final String METRICS_HOST = "router.metrics.host";
    public static final String PARKED_RETRY_MS = "router.parked.retry.ms";
    public static final String PARKED_MAX_MS = "router.parked.max.ms";
    public static final String PARKED_MAX_COUNT = "router.parked.max.count";
    public static final String SATURATION_QUEUE_FACTOR = "router.saturation.queue.factor";
    public static final String SATURATION_KV_USAGE = "router.saturation.kv.usage";
    public static final String KV_HEADROOM = "router.kv.headroom";
    public static final String PREFILL_TOKENS_PER_SECOND = "router.prefill.tokens.per.second";
    /**
     * The step-time profile the kvroute policy starts from for each pool of workers before their finished runs
     * correct it, or {@value #ENGINE_MODEL_NONE}: start knowing no engine and learn each pool's speed.
     */
    public static final String ENGINE_MODEL = "router.engine.model";
    public static final String ENGINE_MODEL_NONE = "none";
    public static final String DEFAULT_ENGINE_MODEL = ENGINE_MODEL_NONE;
    public static final String LEDGER_GRACE_MS = "router.ledger.grace.ms";
    public static final String LEDGER_MAX_AGE_MS = "router.ledger.max.age.ms";
    public static final String PREFIX_INDEX_CAPACITY = "router.prefix.index.capacity";
    public static final String KV_EVENT_INDEX_CAPACITY = "router.kv.event.index.capacity";
    public static final String RANDOM_SEED = "router.random.seed";
    public static final String CANDIDATE_SAMPLE_SIZE = "router.candidate.sample.size";
    public static final String CANDIDATE_PREFIX_HOLDERS = "router.candidate.prefix.holders";
    public static final String CLOSE_TIMEOUT_MS = "router.close.timeout.ms";
    public static final String DEDUP_RETENTION_MS = "router.dedup.retention.ms";
    /** How long a region may be silent before its dispatched, unfinished requests are placed elsewhere. */
    public static final String REPLACE_PATIENCE_MS = "router.replace.patience.ms";
    /** Regions' network delay, price and shared rate limit: {@code name@delayMs[:costPerMillionTokens[:shared]],...}. */
    public static final String REGION_PROFILES = "router.region.profiles";
    public static final String TTFT_TARGET_INTERACTIVE_MS = "router.ttft.target.interactive.ms";
    public static final String TTFT_TARGET_BATCH_MS = "router.ttft.target.batch.ms";
    /** Regions each tenant's requests may run in (a hard constraint): {@code tenant=region|region,...}. */
    public static final String TENANT_REGIONS = "router.tenant.regions";
    /** Per-tenant quotas: {@code tenant=requestsPerMinute/tokensPerMinute[/wait|reject],...} ({@code -} = no limit). */
    public static final String TENANT_QUOTAS = "router.tenant.quotas";
    /** The quota of a tenant not in {@link #TENANT_QUOTAS}: {@code requestsPerMinute/tokensPerMinute[/wait|reject]}. */
    public static final String QUOTA_DEFAULT = "router.quota.default";
    public static final String KAFKA_PREFIX = "kafka.";

    public static final String DEFAULT_TOPIC_PREFIX = KvrouteTopics.DEFAULT_PREFIX;
    public static final String DEFAULT_APPLICATION_ID = "kvroute-router";
    public static final String DEFAULT_POLICY = Policies.DEFAULT;
    public static final long DEFAULT_TELEMETRY_TTL_MS = RoutingSettings.DEFAULT_TELEMETRY_TTL_MS;
    public static final long DEFAULT_TELEMETRY_MAX_CLOCK_SKEW_MS = 10_000;
    public static final long DEFAULT_TELEMETRY_MAX_RATE_LIMIT_MS = 600_000;
    public static final int DEFAULT_TELEMETRY_MAX_WORKERS = 100_000;
    public static final int DEFAULT_DISPATCH_MAX_PARTITIONS = 10_000;
    public static final String DEFAULT_MODELS = "llama-3.1-8b:131072";
    public static final int DEFAULT_MAX_PROMPT_TOKENS = 131_072;
    public static final int DEFAULT_MAX_MESSAGES = 10_000;
    public static final int DEFAULT_MAX_STOP_STRINGS = 64;
    /** 16,384 blocks of 16 tokens: twice the default prompt limit. */
    public static final int DEFAULT_MAX_PREFIX_HASHES = 16_384;
    public static final long DEFAULT_COMMIT_INTERVAL_MS = 50;
    public static final long DEFAULT_COMMIT_INTERVAL_BACKLOG_MS = 500;
    public static final long DEFAULT_COMMIT_BACKLOG_AFTER_MS = 2_000;
    public static final int DEFAULT_METRICS_PORT = -1;
    public static final String DEFAULT_METRICS_HOST = "127.0.0.1";
    public static final long DEFAULT_PARKED_RETRY_MS = 50;
    public static final long DEFAULT_PARKED_MAX_MS = 600_000;
    /** Per routing task; past it a request is rejected at once (NO_CAPACITY) instead of waiting. */
    public static final long DEFAULT_PARKED_MAX_COUNT = 100_000;
    public static final long DEFAULT_CLOSE_TIMEOUT_MS = 30_000;
    /** How long an accepted request id is remembered, so a later request reusing it is rejected as a duplicate. */
    public static final long DEFAULT_DEDUP_RETENTION_MS = 86_400_000;
    public static final long DEFAULT_REPLACE_PATIENCE_MS = 30_000;
    public static final String DEFAULT_REGION_PROFILES = "";
    public static final long DEFAULT_TTFT_TARGET_INTERACTIVE_MS = RegionCatalog.DEFAULT_INTERACTIVE_TTFT_TARGET_MS;
    public static final long DEFAULT_TTFT_TARGET_BATCH_MS = RegionCatalog.DEFAULT_BATCH_TTFT_TARGET_MS;
    public static final String DEFAULT_TENANT_REGIONS = "";
    public static final String DEFAULT_TENANT_QUOTAS = "";
    /** No limit; with no tenant quotas either, the router has no admission step at all. */
    public static final String DEFAULT_QUOTA_DEFAULT = "-/-";
    public static final long MIN_DEDUP_RETENTION_MS = 60_000;
    public static final long MAX_DEDUP_RETENTION_MS = 30L * 86_400_000;
    public static final String EXACTLY_ONCE_V2 = StreamsConfig.EXACTLY_ONCE_V2;


    private static final String NAME_CHARS = "letters, digits, '.', '_' or '-'";

    /**
     * Every router setting: type, valid values, default and what it does. The constructor reads ranges
     * and enumerations from here, {@link #defaults()} is built from it, and {@code docs/settings.md}
     * is generated from it.
     */
    public static final SettingDefs DEFINITIONS = SettingDefs.builder()
            .string(BOOTSTRAP_SERVERS, null, "host:port,...", "The Kafka cluster the router reads from and writes to.")
            .string(SCHEMA_REGISTRY_URL, null, "http://, https:// or mock:// URL",
                    "The schema registry (Confluent API) the Avro serde registers and looks up schemas in.")
            .defineAll(RegistrySettings.DEFINITIONS)
            .string(TOPIC_PREFIX, DEFAULT_TOPIC_PREFIX, NAME_CHARS, "Topics are named `<prefix>.<name>`.")
            .oneOf(TENANT_TOPICS, TenantTopics.NAMES, TenantTopics.SHARED.setting(),
                    "`per-tenant`: the router reads every `<prefix>.requests.<tenant>` and `<prefix>.cancellations.<tenant>`, takes the tenant from the topic (a record naming another is REJECTED) and answers on `<prefix>.responses.<tenant>`; `shared`: one topic each, the tenant as the record says. Workers and clients must agree.")
            .string(APPLICATION_ID, DEFAULT_APPLICATION_ID, NAME_CHARS,
                    "Kafka Streams application id: instances with the same id share the requests partitions; also names the router's admission topics.")
            .stringWorkedOut(STATE_DIR, "`<java.io.tmpdir>/kvroute-router-<application id>`", "a directory",
                    "Kafka Streams state directory, one per instance on a machine.")
            .list(REGIONS, null, "lower-case letters, digits and '-', comma-separated",
                    "The regions requests may name and the router dispatches to (one dispatch topic each).")
            .oneOf(POLICY, Policies.allNames(), DEFAULT_POLICY, "The routing policy.")
            .oneOf(ENGINE_MODEL, enginePriorNames(), DEFAULT_ENGINE_MODEL,
                    "The engine profile the kvroute policy starts each pool from before finished requests teach it that pool's speed; none learns from the first requests.")
            .list(MODELS, DEFAULT_MODELS, "name:maxContextTokens,...",
                    "Served models and their context windows; a request naming another model, or asking for more tokens than the window, is rejected.")
            .intRange(MAX_PROMPT_TOKENS, 1, Integer.MAX_VALUE, DEFAULT_MAX_PROMPT_TOKENS, "A request with a longer prompt is rejected.")
            .intRange(MAX_MESSAGES, 1, 10_000_000, DEFAULT_MAX_MESSAGES, "A request with more chat messages is rejected.")
            .intRange(MAX_STOP_STRINGS, 0, 100_000, DEFAULT_MAX_STOP_STRINGS, "A request with more stop strings is rejected.")
            .intRange(MAX_PREFIX_HASHES, 0, 10_000_000, DEFAULT_MAX_PREFIX_HASHES,
                    "A request with more prefix block hashes is rejected.")
            .longRange(TELEMETRY_TTL_MS, 1, 3_600_000, DEFAULT_TELEMETRY_TTL_MS, "A worker whose newest telemetry is older than this gets no new work.")
            .longRange(TELEMETRY_MAX_CLOCK_SKEW_MS, 0, 3_600_000, DEFAULT_TELEMETRY_MAX_CLOCK_SKEW_MS,
                    "Telemetry observed further ahead of the router's clock than this is refused; a worker's silence is measured by when its telemetry arrived.")
            .longRange(TELEMETRY_MAX_RATE_LIMIT_MS, 1_000, 86_400_000, DEFAULT_TELEMETRY_MAX_RATE_LIMIT_MS,
                    "A worker's reported rate limit (rateLimitedUntilMs) counts at most this far past the record's arrival; a worker still limited says so again.")
            .intRange(TELEMETRY_MAX_WORKERS, 1, 10_000_000, DEFAULT_TELEMETRY_MAX_WORKERS,
                    "Workers the router keeps telemetry of; a record of a new worker past it is refused (dead-lettered): worker ids come from records, so the router's state must not grow with them.")
            .intRange(DISPATCH_MAX_PARTITIONS, 1, 1_000_000, DEFAULT_DISPATCH_MAX_PARTITIONS,
                    "Telemetry claiming a dispatch partition at or past this is refused; set it to the largest dispatch topic's partition count.")
            .longRange(COMMIT_INTERVAL_MS, 1, 60_000, DEFAULT_COMMIT_INTERVAL_MS,
                    "Kafka Streams commit interval; the router always runs exactly_once_v2, so its output becomes readable at this pace.")
            .longRange(COMMIT_INTERVAL_BACKLOG_MS, 1, 60_000, DEFAULT_COMMIT_INTERVAL_BACKLOG_MS,
                    "The commit interval while the router is behind (see router.commit.backlog.after.ms): longer transactions carry more dispatches per partition they write and the routing thread waits on fewer commits, for batches; caught up, it asks for a commit every router.commit.interval.ms. At or below router.commit.interval.ms it is off (Streams commits at router.commit.interval.ms).")
            .longRange(COMMIT_BACKLOG_AFTER_MS, 1, 3_600_000, DEFAULT_COMMIT_BACKLOG_AFTER_MS,
                    "The router is behind while the requests it routes were written at least this long before: a batch, or a backlog no short commit would help.")
            .intRange(METRICS_PORT, -1, 65_535, DEFAULT_METRICS_PORT, "Port of the Prometheus /metrics endpoint; -1 turns it off.")
            .string(METRICS_HOST, DEFAULT_METRICS_HOST, "a host name or address", "Address the metrics endpoint listens on.")
            .longRange(PARKED_RETRY_MS, 1, 60_000, DEFAULT_PARKED_RETRY_MS,
                    "How often requests waiting for capacity are tried again, and other instances' placements followed.")
            .longRange(PARKED_MAX_MS, 1, Long.MAX_VALUE / 4, DEFAULT_PARKED_MAX_MS, "A request that has waited for capacity this long is REJECTED.")
            .longRange(PARKED_MAX_COUNT, 1, 100_000_000, DEFAULT_PARKED_MAX_COUNT,
                    "Requests waiting per routing task; beyond it a new one is REJECTED at once.")
            .doubleRange(SATURATION_QUEUE_FACTOR, 0.01, 1_000, RoutingSettings.DEFAULT_SATURATION_QUEUE_FACTOR,
                    "A worker with running + waiting + pending requests at this many times its batch limit takes no new work (under kvroute, its candidates together).")
            .doubleRange(SATURATION_KV_USAGE, 0.01, 1.0, RoutingSettings.DEFAULT_SATURATION_KV_USAGE,
                    "KV use, with the router's placements since the telemetry, past which a worker takes no new work (under kvroute, except a request whose prefix it holds).")
            .doubleRange(KV_HEADROOM, 0.01, 1.0, RoutingSettings.DEFAULT_KV_HEADROOM,
                    "KV use past which the kvroute policy charges a placement for the pages it adds.")
            .doubleRange(PREFILL_TOKENS_PER_SECOND, 1, 1e9, RoutingSettings.DEFAULT_PREFILL_TOKENS_PER_SECOND,
                    "Prefill rate assumed for a worker before its pool's speed is learnt (a higher measured rate wins).")
            .longRange(LEDGER_GRACE_MS, 0, 600_000, RoutingSettings.DEFAULT_LEDGER_GRACE_MS,
                    "Placements made up to this long before a telemetry snapshot still count on top of it (the worker may not have seen them).")
            .longRange(LEDGER_MAX_AGE_MS, 1, 3_600_000, RoutingSettings.DEFAULT_LEDGER_MAX_AGE_MS,
                    "The router forgets its own pending placements after this long even without new telemetry.")
            .intRange(PREFIX_INDEX_CAPACITY, 1, 100_000_000, RoutingSettings.DEFAULT_PREFIX_INDEX_CAPACITY,
                    "(block, worker) pairs kept in the index of where the router sent each prefix.")
            .intRange(KV_EVENT_INDEX_CAPACITY, 1, 100_000_000, RoutingSettings.DEFAULT_KV_EVENT_INDEX_CAPACITY,
                    "(block, worker) pairs kept from workers' KV events; stores beyond it are dropped.")
            .longRange(RANDOM_SEED, Long.MIN_VALUE, Long.MAX_VALUE, RoutingSettings.DEFAULT_RANDOM_SEED,
                    "Seed of the randomised choices (power-of-two, candidate sampling): same seed, same choices.")
            .intRange(CANDIDATE_SAMPLE_SIZE, 1, 1_000_000, RoutingSettings.DEFAULT_CANDIDATE_SAMPLE_SIZE,
                    "In a larger fleet a decision evaluates the prefix holders plus this many other workers drawn at random.")
            .intRange(CANDIDATE_PREFIX_HOLDERS, 0, 1_000_000, RoutingSettings.DEFAULT_CANDIDATE_PREFIX_HOLDERS,
                    "At most this many prefix holders (longest match first) are evaluated in a sampled decision.")
            .longRange(CLOSE_TIMEOUT_MS, 0, 3_600_000, DEFAULT_CLOSE_TIMEOUT_MS, "How long shutdown waits for Kafka Streams to close.")
            .longRange(DEDUP_RETENTION_MS, MIN_DEDUP_RETENTION_MS, MAX_DEDUP_RETENTION_MS, DEFAULT_DEDUP_RETENTION_MS,
                    "How long an accepted request id is remembered (a reuse is rejected) and a dispatched request's result awaited before it is answered FAILED.")
            .longRange(REPLACE_PATIENCE_MS, 1, 86_400_000, DEFAULT_REPLACE_PATIENCE_MS,
                    "A region silent this long has its unfinished requests placed elsewhere; a starting router waits this long before re-placing; must exceed router.telemetry.ttl.ms.")
            .string(REGION_PROFILES, DEFAULT_REGION_PROFILES, "name@delayMs[:pricePerMillionTokens[:shared]],...",
                    "Regions' one-way delay, price and shared rate limit; when set, kvroute takes the cheapest region that meets the request's TTFT target.")
            .longRange(TTFT_TARGET_INTERACTIVE_MS, 1, 3_600_000, DEFAULT_TTFT_TARGET_INTERACTIVE_MS,
                    "TTFT target of INTERACTIVE requests when choosing a region by price.")
            .longRange(TTFT_TARGET_BATCH_MS, 1, 86_400_000, DEFAULT_TTFT_TARGET_BATCH_MS, "TTFT target of BATCH requests when choosing a region by price.")
            .string(TENANT_REGIONS, DEFAULT_TENANT_REGIONS, "tenant=region|region,...",
                    "Regions each tenant's requests may run in, a hard constraint (residency).")
            .string(TENANT_QUOTAS, DEFAULT_TENANT_QUOTAS, "tenant=requestsPerMinute/tokensPerMinute[/wait|reject],... (- = no limit)",
                    "Per-tenant quotas; over quota a request waits or is REJECTED.")
            .string(QUOTA_DEFAULT, DEFAULT_QUOTA_DEFAULT, "requestsPerMinute/tokensPerMinute[/wait|reject]",
                    "The quota of a tenant not named in router.tenant.quotas.")
            .build();

    private static final Pattern REGION = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");
    private static final Pattern APP_ID = Pattern.compile("[A-Za-z0-9._-]+");

    private final String bootstrapServers;
    private final String schemaRegistryUrl;
    private final KvrouteTopics topics;
    private final TenantTopics tenantTopics;
    private final String applicationId;
    private final String policy;
    private final List<String> regions;
    private final Map<String, Integer> modelContextTokens;
    private final int maxPromptTokens;
    private final RequestValidator.Bounds requestBounds;
    private final long commitIntervalMs;
    private final long commitIntervalBacklogMs;
    private final long commitBacklogAfterMs;
    private final Path stateDir;
    private final int metricsPort;
    private final String metricsHost;
    private final long parkedRetryMs;
    private final long parkedMaxMs;
    private final long parkedMaxCount;
    private final long closeTimeoutMs;
    private final long dedupRetentionMs;
    private final long replacePatienceMs;
    private final long telemetryMaxClockSkewMs;
    private final long telemetryMaxRateLimitMs;
    private final int telemetryMaxWorkers;
    private final int dispatchMaxPartitions;
    private final RoutingSettings routing;
    private final RegionCatalog regionCatalog;
    private final Residency residency;
    private final Map<String, QuotaLimits> tenantQuotas;
    private final QuotaLimits defaultQuota;
    private final Map<String, Object> kafkaOverrides;
    private final Map<String, Object> serdeConfig;

    private RouterConfig(Settings s) {
        bootstrapServers = s.string(BOOTSTRAP_SERVERS);
        schemaRegistryUrl = s.matching(SCHEMA_REGISTRY_URL,
                v -> v.startsWith("http://") || v.startsWith("https://") || v.startsWith("mock://"),
                "must start with http://, https:// or mock://");
        String prefix = s.matching(TOPIC_PREFIX, v -> v.matches("[A-Za-z0-9._-]+"), "must be letters, digits, '.', '_' or '-'");
        topics = new KvrouteTopics(prefix, KvrouteTopics.DEFAULT_PARTITIONS);
        tenantTopics = TenantTopics.of(DEFINITIONS.oneOf(s, TENANT_TOPICS));
        applicationId = s.matching(APPLICATION_ID, v -> APP_ID.matcher(v).matches(), "must be letters, digits, '.', '_' or '-'");
        policy = DEFINITIONS.oneOf(s, POLICY);
        regions = regions(s);
        modelContextTokens = models(s);
        maxPromptTokens = DEFINITIONS.intValue(s, MAX_PROMPT_TOKENS);
        requestBounds = new RequestValidator.Bounds(DEFINITIONS.intValue(s, MAX_MESSAGES), DEFINITIONS.intValue(s, MAX_STOP_STRINGS),
                DEFINITIONS.intValue(s, MAX_PREFIX_HASHES));
        commitIntervalMs = DEFINITIONS.longValue(s, COMMIT_INTERVAL_MS);
        // no shorter than the caught-up interval: a caught-up interval raised alone must not meet an error on this key
        commitIntervalBacklogMs = Math.max(commitIntervalMs, DEFINITIONS.longValue(s, COMMIT_INTERVAL_BACKLOG_MS));
        commitBacklogAfterMs = DEFINITIONS.longValue(s, COMMIT_BACKLOG_AFTER_MS);
        stateDir = Path.of(s.string(STATE_DIR, Path.of(System.getProperty("java.io.tmpdir"), "kvroute-router-" + applicationId).toString()));
        metricsPort = DEFINITIONS.intValue(s, METRICS_PORT);
        metricsHost = s.string(METRICS_HOST);
        parkedRetryMs = DEFINITIONS.longValue(s, PARKED_RETRY_MS);
        parkedMaxMs = DEFINITIONS.longValue(s, PARKED_MAX_MS);
        parkedMaxCount = DEFINITIONS.longValue(s, PARKED_MAX_COUNT);
        closeTimeoutMs = DEFINITIONS.longValue(s, CLOSE_TIMEOUT_MS);
        dedupRetentionMs = DEFINITIONS.longValue(s, DEDUP_RETENTION_MS);
        long ttl = DEFINITIONS.longValue(s, TELEMETRY_TTL_MS);
        replacePatienceMs = DEFINITIONS.longValue(s, REPLACE_PATIENCE_MS);
        telemetryMaxClockSkewMs = DEFINITIONS.longValue(s, TELEMETRY_MAX_CLOCK_SKEW_MS);
        telemetryMaxRateLimitMs = DEFINITIONS.longValue(s, TELEMETRY_MAX_RATE_LIMIT_MS);
        telemetryMaxWorkers = DEFINITIONS.intValue(s, TELEMETRY_MAX_WORKERS);
        dispatchMaxPartitions = DEFINITIONS.intValue(s, DISPATCH_MAX_PARTITIONS);
        if (replacePatienceMs <= ttl) {
            // a region is only silent once its telemetry is stale: re-placing sooner would move work from live workers
            throw new ConfigException(REPLACE_PATIENCE_MS, Long.toString(replacePatienceMs),
                    "must be longer than " + TELEMETRY_TTL_MS + " (" + ttl + ")");
        }
        double queueFactor = DEFINITIONS.doubleValue(s, SATURATION_QUEUE_FACTOR);
        double kvSaturation = DEFINITIONS.doubleValue(s, SATURATION_KV_USAGE);
        double kvHeadroom = DEFINITIONS.doubleValue(s, KV_HEADROOM);
        double prefillRate = DEFINITIONS.doubleValue(s, PREFILL_TOKENS_PER_SECOND);
        long graceMs = DEFINITIONS.longValue(s, LEDGER_GRACE_MS);
        long maxAgeMs = DEFINITIONS.longValue(s, LEDGER_MAX_AGE_MS);
        int prefixCapacity = DEFINITIONS.intValue(s, PREFIX_INDEX_CAPACITY);
        int kvEventCapacity = DEFINITIONS.intValue(s, KV_EVENT_INDEX_CAPACITY);
        long randomSeed = DEFINITIONS.longValue(s, RANDOM_SEED);
        int sampleSize = DEFINITIONS.intValue(s, CANDIDATE_SAMPLE_SIZE);
        int prefixHolders = DEFINITIONS.intValue(s, CANDIDATE_PREFIX_HOLDERS);
        routing = new RoutingSettings(ttl, Set.copyOf(regions), queueFactor, kvSaturation, kvHeadroom, prefillRate,
                RoutingSettings.DEFAULT_DECODE_RESERVE_TOKENS, graceMs, maxAgeMs, prefixCapacity, kvEventCapacity, randomSeed,
                sampleSize, prefixHolders, enginePrior(s));
        regionCatalog = regionCatalog(s);
        residency = parsed(s, TENANT_REGIONS, Residency::parse);
        // a misspelt region would silently never match a worker: refuse it at start-up
        checkKnownRegions(s, REGION_PROFILES, RegionProfile.parseList(s.string(REGION_PROFILES, "")).stream()
                .map(RegionProfile::name).toList());
        for (String part : s.string(TENANT_REGIONS, "").split(",")) {
            if (!part.isBlank()) {
                checkKnownRegions(s, TENANT_REGIONS, List.of(part.substring(part.indexOf('=') + 1).split("\\|")).stream()
                        .map(String::trim).toList());
            }
        }
        tenantQuotas = parsed(s, TENANT_QUOTAS, QuotaLimits::parseMap);
        defaultQuota = parsed(s, QUOTA_DEFAULT, v -> v.isBlank() ? QuotaLimits.NONE
                : QuotaLimits.parseMap("default=" + v.trim()).get("default"));
        kafkaOverrides = Collections.unmodifiableMap(s.withPrefix(KAFKA_PREFIX));
        checkOwnedKeysNotOverridden();
        serdeConfig = Collections.unmodifiableMap(RegistrySettings.serdeConfig(s));
    }

    /** The profile {@value #ENGINE_MODEL} names, or null for {@value #ENGINE_MODEL_NONE}. */
    private static TtftModel enginePrior(Settings s) {
        String name = DEFINITIONS.oneOf(s, ENGINE_MODEL);
        return ENGINE_MODEL_NONE.equals(name) ? null : TtftModel.named(name);
    }

    /** Validates {@code settings} (layered over {@link #defaults()}) into a config. */
    public static RouterConfig from(Settings settings) {
        settings.requireKnownKeys("router.", RouterConfig.class);
        Map<String, String> merged = new LinkedHashMap<>(defaults());
        settings.asMap().forEach((k, v) -> {
            if (v != null) {
                merged.put(k, v);
            }
        });
        return new RouterConfig(Settings.of(merged));
    }

    /** Every key with a default, and its default value. */
    public static Map<String, String> defaults() {
        return DEFINITIONS.defaults();
    }

    /** The engine profiles {@value #ENGINE_MODEL} accepts: every named profile and {@value #ENGINE_MODEL_NONE}. */
    private static List<String> enginePriorNames() {
        List<String> allowed = new ArrayList<>(TtftModel.names());
        allowed.add(ENGINE_MODEL_NONE);
        return List.copyOf(allowed);
    }

    private static RegionCatalog regionCatalog(Settings s) {
        long interactive = DEFINITIONS.longValue(s, TTFT_TARGET_INTERACTIVE_MS);
        long batch = DEFINITIONS.longValue(s, TTFT_TARGET_BATCH_MS);
        List<RegionProfile> profiles = parsed(s, REGION_PROFILES, RegionProfile::parseList);
        try {
            return new RegionCatalog(profiles, interactive, batch);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(REGION_PROFILES, s.string(REGION_PROFILES, ""), e.getMessage());
        }
    }

    private void checkKnownRegions(Settings s, String key, List<String> named) {
        for (String region : named) {
            if (!regions.contains(region)) {
                throw new ConfigException(key, s.string(key, ""), "region '" + region + "' is not one of " + REGIONS + " " + regions);
            }
        }
    }

    /** Parses a notation setting, turning a parse error into one naming the key and value. */
    private static <T> T parsed(Settings s, String key, java.util.function.Function<String, T> parser) {
        String raw = s.string(key, "");
        try {
            return parser.apply(raw);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key, raw, e.getMessage());
        }
    }

    private static List<String> regions(Settings s) {
        List<String> list = s.list(REGIONS);
        if (list.isEmpty()) {
            throw new ConfigException(REGIONS, s.string(REGIONS, ""), "is required: a comma-separated list of regions, e.g. us-east,eu-west");
        }
        for (String region : list) {
            if (!REGION.matcher(region).matches()) {
                throw new ConfigException(REGIONS, s.string(REGIONS), "region '" + region + "' must be lower-case letters, digits and '-'");
            }
        }
        return List.copyOf(new LinkedHashSet<>(list));
    }

    private static Map<String, Integer> models(Settings s) {
        String raw = s.string(MODELS);
        Map<String, Integer> models = new LinkedHashMap<>();
        for (String entry : s.list(MODELS)) {
            int colon = entry.lastIndexOf(':');
            if (colon <= 0 || colon == entry.length() - 1) {
                throw new ConfigException(MODELS, raw, "entry '" + entry + "' must be name:maxContextTokens");
            }
            int tokens;
            try {
                tokens = Integer.parseInt(entry.substring(colon + 1).trim());
            } catch (NumberFormatException e) {
                throw new ConfigException(MODELS, raw, "entry '" + entry + "' has a context size that is not an integer");
            }
            if (tokens < 1) {
                throw new ConfigException(MODELS, raw, "entry '" + entry + "' must have a positive context size");
            }
            models.put(entry.substring(0, colon).trim(), tokens);
        }
        if (models.isEmpty()) {
            throw new ConfigException(MODELS, raw, "must name at least one model as name:maxContextTokens");
        }
        return Collections.unmodifiableMap(models);
    }

    private void checkOwnedKeysNotOverridden() {
        Object guarantee = kafkaOverrides.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG);
        if (guarantee != null && !EXACTLY_ONCE_V2.equals(guarantee)) {
            throw new ConfigException(KAFKA_PREFIX + StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee,
                    "the router always runs exactly_once_v2; remove this setting");
        }
        for (String owned : List.of(StreamsConfig.APPLICATION_ID_CONFIG, StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, StreamsConfig.STATE_DIR_CONFIG)) {
            if (kafkaOverrides.containsKey(owned)) {
                throw new ConfigException(KAFKA_PREFIX + owned, kafkaOverrides.get(owned),
                        "is owned by the router; set " + ownerKey(owned) + " instead");
            }
        }
    }

    private static String ownerKey(String streamsKey) {
        return switch (streamsKey) {
            case StreamsConfig.APPLICATION_ID_CONFIG -> APPLICATION_ID;
            case StreamsConfig.STATE_DIR_CONFIG -> STATE_DIR;
            default -> BOOTSTRAP_SERVERS;
        };
    }

    /** Kafka Streams properties: pass-through settings first, then the keys the router owns. */
    public Properties streamsProperties() {
        Properties p = new Properties();
        p.putAll(kafkaOverrides);
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, EXACTLY_ONCE_V2);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        // Streams' own interval is the backlog one; caught up, the routing processor asks every router.commit.interval.ms
        p.putIfAbsent(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.toString(commitIntervalBacklogMs));
        if (tenantTopics == TenantTopics.PER_TENANT) {
            // a new tenant's topics are read from the consumer's next metadata refresh: within 30 s, not the default 5 min
            p.putIfAbsent(StreamsConfig.mainConsumerPrefix(ConsumerConfig.METADATA_MAX_AGE_CONFIG), "30000");
        }
        // The routing task's inputs stand alone (a request, a cancellation, a worker's response; a cancellation read first
        // is kept for its request), so nothing is gained by holding a record back until every input partition has data
        // to interleave by timestamp; and while it checks, Kafka Streams 4.4 formats a log line per empty partition for
        // every record it processes (PartitionGroup.readyToProcess), 6 % of the routing thread in a profile.
        p.putIfAbsent(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, Long.toString(StreamsConfig.MAX_TASK_IDLE_MS_DISABLED));
        // the telemetry processor never throws; opt in to the 5.0 behaviour now rather than log a warning
        p.putIfAbsent(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, "true");
        // a request that makes the topology throw is dead-lettered and rejected, never retried forever
        p.putIfAbsent(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetteringProcessingHandler.class.getName());
        p.putIfAbsent(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetteringProductionHandler.class.getName());
        p.put(DeadLetters.DLQ_TOPIC, topics.deadLetters().name());
        p.put(DeadLetters.RESPONSES_TOPIC, topics.responses().name());
        p.put(DeadLetters.REQUESTS_TOPIC, topics.requests().name());
        // the handlers' own registry client needs the registry's credentials and trust too
        p.putAll(serdeConfig);
        p.put(SerdeConfig.SCHEMA_REGISTRY_URL, schemaRegistryUrl);
        return p;
    }

    /** Client settings for an admin client talking to the same cluster. */
    public Map<String, Object> adminConfig() {
        Map<String, Object> admin = new HashMap<>();
        kafkaOverrides.forEach((k, v) -> {
            if (k.startsWith("security.") || k.startsWith("sasl.") || k.startsWith("ssl.")) {
                admin.put(k, v);
            }
        });
        admin.put("bootstrap.servers", bootstrapServers);
        return admin;
    }

    public String bootstrapServers() { return bootstrapServers; }
    public String schemaRegistryUrl() { return schemaRegistryUrl; }
    public KvrouteTopics topics() { return topics; }
    /** Whether each tenant has its own requests, responses and cancellations topics. */
    public TenantTopics tenantTopics() { return tenantTopics; }
    public String applicationId() { return applicationId; }
    public String policy() { return policy; }
    public List<String> regions() { return regions; }
    /** Model name to its context size in tokens; also the limit on maxTokens. */
    public Map<String, Integer> modelContextTokens() { return modelContextTokens; }
    public int maxPromptTokens() { return maxPromptTokens; }
    /** How many messages, stop strings and prefix block hashes a request may carry. */
    public RequestValidator.Bounds requestBounds() { return requestBounds; }
    public long commitIntervalMs() { return commitIntervalMs; }

    public long commitIntervalBacklogMs() { return commitIntervalBacklogMs; }

    public long commitBacklogAfterMs() { return commitBacklogAfterMs; }
    public Path stateDir() { return stateDir; }
    public int metricsPort() { return metricsPort; }
    public String metricsHost() { return metricsHost; }
    public long parkedRetryMs() { return parkedRetryMs; }
    public long replacePatienceMs() { return replacePatienceMs; }
    public long telemetryMaxClockSkewMs() { return telemetryMaxClockSkewMs; }
    public long telemetryMaxRateLimitMs() { return telemetryMaxRateLimitMs; }
    public int telemetryMaxWorkers() { return telemetryMaxWorkers; }
    public int dispatchMaxPartitions() { return dispatchMaxPartitions; }
    public long parkedMaxMs() { return parkedMaxMs; }
    public long parkedMaxCount() { return parkedMaxCount; }
    public long closeTimeoutMs() { return closeTimeoutMs; }
    public long dedupRetentionMs() { return dedupRetentionMs; }
    public RoutingSettings routing() { return routing; }
    /** Regions' delays, prices and TTFT targets; empty (placement as without a catalog) unless configured. */
    public RegionCatalog regionCatalog() { return regionCatalog; }
    /** Tenants' allowed regions. */
    public Residency residency() { return residency; }
    public Map<String, QuotaLimits> tenantQuotas() { return tenantQuotas; }
    public QuotaLimits defaultQuota() { return defaultQuota; }
    /**
     * The router's own topic of requests and quota settlements keyed by tenant, read by its admission
     * step; named after the application so two routers never share it. Created by {@code RouterApp}.
     */
    public String admissionTopic() { return applicationId + "-admission-by-tenant"; }
    /** The router's own topic of admitted requests, keyed by request id again (partitioned like the responses topic). */
    public String admittedTopic() { return applicationId + "-admitted-requests"; }
    /** Whether any tenant has a quota: only then does the topology have an admission step. */
    public boolean quotasEnabled() {
        return !defaultQuota.unlimited() || tenantQuotas.values().stream().anyMatch(q -> !q.unlimited());
    }
    public Map<String, Object> kafkaOverrides() { return kafkaOverrides; }
    /**
     * Settings for {@code io.kvroute.schemas.serde.Serdes}: the registry URL, its credentials and TLS
     * ({@code schema.registry.*}, {@code basic.auth.*}, {@code bearer.auth.*}) and the serde options.
     */
    public Map<String, Object> serdeConfig() { return serdeConfig; }
}
