package io.kvroute.ingress.client;

import io.kvroute.ingress.prompt.PrefixSalt;
import io.kvroute.ingress.prompt.PromptHasher;
import io.kvroute.platform.config.ConfigException;
import io.kvroute.platform.config.RegistrySettings;
import io.kvroute.platform.config.SettingDefs;
import io.kvroute.platform.config.Settings;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.topics.TenantTopics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Everything a {@link KvrouteClient} (and the CLI readers) need, validated when built so a bad
 * setting fails at start-up with its key and value. Keys under {@value #KAFKA_PREFIX} go to the
 * Kafka producer and consumers unchanged (minus the prefix), after kvroute's own settings, so
 * they can tune but cannot switch off idempotence or {@code read_committed}.
 *
 * <p>The prefix salt ({@value #PREFIX_SALT}, or the file {@value #PREFIX_SALT_FILE} names) is a
 * secret: give it in a properties file, the {@code KVROUTE_INGRESS_PREFIX_SALT} environment variable
 * or a file, never on a command line. Only its digest is kept, and no message or {@link #toString()}
 * shows it.
 */
public final class ClientConfig {
    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
    public static final String TOPIC_PREFIX = "kvroute.topic.prefix";
    public static final String TENANT_TOPICS = TenantTopics.SETTING;
    public static final String TENANT = "ingress.tenant";
    public static final String CLIENT_ID = "ingress.client.id";
    public static final String PREFIX_BLOCK_TOKENS = "ingress.prefix.block.tokens";
    public static final String CHUNK_GRACE_MS = "ingress.chunk.grace.ms";
    public static final String PREFIX_SALT = "ingress.prefix.salt";
    public static final String PREFIX_SALT_FILE = "ingress.prefix.salt.file";
    public static final String KAFKA_PREFIX = "kafka.";

    public static final String DEFAULT_TENANT = "default";
    public static final String DEFAULT_CLIENT_ID = "kvroute-ingress";
    public static final int DEFAULT_PREFIX_BLOCK_TOKENS = PromptHasher.DEFAULT_BLOCK_TOKENS;
    public static final long DEFAULT_CHUNK_GRACE_MS = 5_000;

    /**
     * Every client setting (the library, and the submit / collect / decisions / cancel commands):
     * type, valid values, default and what it does; {@code docs/settings.md} is generated from it.
     */
    public static final SettingDefs DEFINITIONS = SettingDefs.builder()
            .string(BOOTSTRAP_SERVERS, null, "host:port,...", "The Kafka cluster requests are written to and results read from.")
            .string(SCHEMA_REGISTRY_URL, null, "http:// or https:// URL", "The schema registry (Confluent API).")
            .defineAll(RegistrySettings.DEFINITIONS)
            .string(TOPIC_PREFIX, KvrouteTopics.DEFAULT_PREFIX, "letters, digits, '.', '_' or '-'", "Topics are named `<prefix>.<name>`; must match the router's.")
            .oneOf(TENANT_TOPICS, TenantTopics.NAMES, TenantTopics.SHARED.setting(),
                    "`per-tenant`: this client writes `<prefix>.requests.<tenant>` and `<prefix>.cancellations.<tenant>` and reads `<prefix>.responses.<tenant>`, its tenant's own topics; `shared`: the one topic of each. Must match the router's.")
            .string(TENANT, DEFAULT_TENANT, "any name; with per-tenant topics letters, digits, '_' or '-' (at most 64)",
                    "The tenant requests are submitted under (quotas, residency and fairness key on it).")
            .string(CLIENT_ID, DEFAULT_CLIENT_ID, "any name", "Prefix of the Kafka client ids.")
            .intRange(PREFIX_BLOCK_TOKENS, 1, 1 << 16, DEFAULT_PREFIX_BLOCK_TOKENS,
                    "Tokens per prompt block hashed for prefix routing; the size travels with each request.")
            .longRange(CHUNK_GRACE_MS, 0, 3_600_000, DEFAULT_CHUNK_GRACE_MS,
                    "How long a result with chunks still missing waits for them before it is delivered with the chunks at hand.")
            .password(PREFIX_SALT, "Secret (at least " + PrefixSalt.MIN_SECRET_CHARS + " characters) that prefix hashes are salted with, "
                    + "for every tenant this client submits for; clients given the same salt share prefixes. Default: each tenant's own, from its name.")
            .stringWorkedOut(PREFIX_SALT_FILE, "(none)", "a readable file",
                    "A file holding " + PREFIX_SALT + " (surrounding whitespace dropped), instead of the setting itself.")
            .build();

    private final String bootstrapServers;
    private final String schemaRegistryUrl;
    private final KvrouteTopics topics;
    private final String tenant;
    private final TenantTopics tenantTopics;
    private final String clientId;
    private final int prefixBlockTokens;
    private final long chunkGraceMs;
    private final PrefixSalt prefixSalt;
    private final Map<String, Object> kafkaOverrides;
    private final Map<String, Object> serdeConfig;

    private ClientConfig(Settings settings) {
        this.bootstrapServers = settings.string(BOOTSTRAP_SERVERS);
        this.schemaRegistryUrl = settings.string(SCHEMA_REGISTRY_URL);
        String prefix = settings.string(TOPIC_PREFIX, KvrouteTopics.DEFAULT_PREFIX);
        try {
            this.topics = new KvrouteTopics(prefix, KvrouteTopics.DEFAULT_PARTITIONS);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(TOPIC_PREFIX, prefix, "must be letters, digits, '.', '_' or '-'");
        }
        this.tenant = settings.string(TENANT, DEFAULT_TENANT);
        this.tenantTopics = TenantTopics.of(settings.has(TENANT_TOPICS) ? settings.oneOf(TENANT_TOPICS, TenantTopics.NAMES)
                : TenantTopics.SHARED.setting());
        if (tenantTopics == TenantTopics.PER_TENANT && !KvrouteTopics.isTenantName(tenant)) {
            throw new ConfigException(TENANT, tenant, "must be letters, digits, '_' or '-' (at most 64) with " + TENANT_TOPICS + "="
                    + TenantTopics.PER_TENANT.setting() + ": it names the tenant's topics");
        }
        this.clientId = settings.string(CLIENT_ID, DEFAULT_CLIENT_ID);
        this.prefixBlockTokens = settings.has(PREFIX_BLOCK_TOKENS) ? DEFINITIONS.intValue(settings, PREFIX_BLOCK_TOKENS) : DEFAULT_PREFIX_BLOCK_TOKENS;
        this.chunkGraceMs = settings.has(CHUNK_GRACE_MS) ? DEFINITIONS.longValue(settings, CHUNK_GRACE_MS) : DEFAULT_CHUNK_GRACE_MS;
        this.prefixSalt = prefixSalt(settings);
        this.kafkaOverrides = Map.copyOf(settings.withPrefix(KAFKA_PREFIX));
        Map<String, Object> serde = RegistrySettings.serdeConfig(settings);
        serde.put(SCHEMA_REGISTRY_URL, schemaRegistryUrl);
        this.serdeConfig = Map.copyOf(serde);
    }

    /** The configured salt, or null for each tenant's own; messages name the key and the length, never the value. */
    private static PrefixSalt prefixSalt(Settings settings) {
        if (settings.has(PREFIX_SALT) && settings.has(PREFIX_SALT_FILE)) {
            throw new ConfigException(PREFIX_SALT_FILE, settings.string(PREFIX_SALT_FILE), "cannot be set together with " + PREFIX_SALT);
        }
        String key = PREFIX_SALT;
        String secret = null;
        if (settings.has(PREFIX_SALT)) {
            secret = settings.string(PREFIX_SALT);
        } else if (settings.has(PREFIX_SALT_FILE)) {
            key = PREFIX_SALT_FILE;
            String file = settings.string(PREFIX_SALT_FILE);
            try {
                secret = Files.readString(Path.of(file)).strip();
            } catch (IOException | InvalidPathException e) {
                throw new ConfigException(PREFIX_SALT_FILE, file, "cannot be read (" + e.getClass().getSimpleName() + ")");
            }
        }
        if (secret == null) {
            return null;
        }
        if (secret.length() < PrefixSalt.MIN_SECRET_CHARS) {
            throw new ConfigException(key, "***", "the salt must have at least " + PrefixSalt.MIN_SECRET_CHARS
                    + " characters, had " + secret.length());
        }
        return PrefixSalt.ofSecret(secret);
    }

    public static ClientConfig from(Settings settings) {
        return new ClientConfig(settings);
    }

    public static ClientConfig of(Map<String, String> values) {
        return new ClientConfig(Settings.of(values));
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public String schemaRegistryUrl() {
        return schemaRegistryUrl;
    }

    public KvrouteTopics topics() {
        return topics;
    }

    /** The topic this client writes requests to: its tenant's with topics per tenant. */
    public String requestsTopic() {
        return topics.requestsFor(tenantTopics, tenant);
    }

    /** The topic this client reads results from: its tenant's with topics per tenant. */
    public String responsesTopic() {
        return topics.responsesFor(tenantTopics, tenant);
    }

    /** The topic this client writes cancels to: its tenant's with topics per tenant. */
    public String cancellationsTopic() {
        return topics.cancellationsFor(tenantTopics, tenant);
    }

    public String tenant() {
        return tenant;
    }

    public String clientId() {
        return clientId;
    }

    public int prefixBlockTokens() {
        return prefixBlockTokens;
    }

    public long chunkGraceMs() {
        return chunkGraceMs;
    }

    /** The configured prefix salt, or empty when each tenant's requests are salted with the tenant's own. */
    public Optional<PrefixSalt> prefixSalt() {
        return Optional.ofNullable(prefixSalt);
    }

    /**
     * The serde configuration: the registry URL, its credentials and TLS ({@code schema.registry.*},
     * {@code basic.auth.*}, {@code bearer.auth.*}) and the serde options.
     */
    public Map<String, Object> serdeConfig() {
        return serdeConfig;
    }

    /** Producer settings: acks=all and idempotence, whatever the pass-through says. */
    public Map<String, Object> producerConfig() {
        Map<String, Object> config = base("-producer");
        config.put("acks", "all");
        config.put("enable.idempotence", "true");
        return config;
    }

    /** Settings for a reading consumer that assigns partitions itself and never commits. */
    public Map<String, Object> readerConfig(String role) {
        Map<String, Object> config = base("-" + role);
        config.put("isolation.level", "read_committed");
        config.put("enable.auto.commit", "false");
        config.remove("group.id");
        return config;
    }

    /** The settings without secrets: the prefix salt masked, the Kafka and serde pass-through by key only (they may hold credentials). */
    @Override
    public String toString() {
        return "ClientConfig[bootstrapServers=" + bootstrapServers + ", schemaRegistryUrl=" + schemaRegistryUrl
                + ", topicPrefix=" + topics.prefix() + ", tenant=" + tenant + ", clientId=" + clientId
                + ", prefixBlockTokens=" + prefixBlockTokens + ", chunkGraceMs=" + chunkGraceMs
                + ", prefixSalt=" + (prefixSalt == null ? "per tenant" : "***")
                + ", kafka=" + new TreeSet<>(kafkaOverrides.keySet())
                + ", serde=" + new TreeSet<>(serdeConfig.keySet()) + "]";
    }

    private Map<String, Object> base(String clientIdSuffix) {
        Map<String, Object> config = new HashMap<>();
        config.put("client.id", clientId + clientIdSuffix);
        config.putAll(kafkaOverrides);
        config.put("bootstrap.servers", bootstrapServers);
        return config;
    }
}
