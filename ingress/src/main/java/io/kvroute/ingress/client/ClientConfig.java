package io.kvroute.ingress.client;

import io.kvroute.ingress.prompt.PromptHasher;
import io.kvroute.platform.config.ConfigException;
import io.kvroute.platform.config.Settings;
import io.kvroute.schemas.topics.KvrouteTopics;
import java.util.HashMap;
import java.util.Map;

/**
 * Everything a {@link KvrouteClient} (and the CLI readers) need, validated when built so a bad
 * setting fails at start-up with its key and value. Keys under {@value #KAFKA_PREFIX} go to the
 * Kafka producer and consumers unchanged (minus the prefix), after kvroute's own settings, so
 * they can tune but cannot switch off idempotence or {@code read_committed}.
 */
public final class ClientConfig {
    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
    public static final String TOPIC_PREFIX = "kvroute.topic.prefix";
    public static final String TENANT = "ingress.tenant";
    public static final String CLIENT_ID = "ingress.client.id";
    public static final String PREFIX_BLOCK_TOKENS = "ingress.prefix.block.tokens";
    public static final String CHUNK_GRACE_MS = "ingress.chunk.grace.ms";
    public static final String KAFKA_PREFIX = "kafka.";

    public static final String DEFAULT_TENANT = "default";
    public static final String DEFAULT_CLIENT_ID = "kvroute-ingress";
    public static final int DEFAULT_PREFIX_BLOCK_TOKENS = PromptHasher.DEFAULT_BLOCK_TOKENS;
    public static final long DEFAULT_CHUNK_GRACE_MS = 5_000;

    private final String bootstrapServers;
    private final String schemaRegistryUrl;
    private final KvrouteTopics topics;
    private final String tenant;
    private final String clientId;
    private final int prefixBlockTokens;
    private final long chunkGraceMs;
    private final Map<String, Object> kafkaOverrides;

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
        this.clientId = settings.string(CLIENT_ID, DEFAULT_CLIENT_ID);
        this.prefixBlockTokens = settings.has(PREFIX_BLOCK_TOKENS) ? settings.intValue(PREFIX_BLOCK_TOKENS, 1, 1 << 16) : DEFAULT_PREFIX_BLOCK_TOKENS;
        this.chunkGraceMs = settings.has(CHUNK_GRACE_MS) ? settings.longValue(CHUNK_GRACE_MS, 0, 3_600_000) : DEFAULT_CHUNK_GRACE_MS;
        this.kafkaOverrides = Map.copyOf(settings.withPrefix(KAFKA_PREFIX));
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

    /** The serde configuration: the registry URL. */
    public Map<String, Object> serdeConfig() {
        return Map.of(SCHEMA_REGISTRY_URL, schemaRegistryUrl);
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

    private Map<String, Object> base(String clientIdSuffix) {
        Map<String, Object> config = new HashMap<>();
        config.put("client.id", clientId + clientIdSuffix);
        config.putAll(kafkaOverrides);
        config.put("bootstrap.servers", bootstrapServers);
        return config;
    }
}
