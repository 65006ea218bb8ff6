package io.kvroute.ingress.cli;

import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.platform.config.Settings;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The connection options every kvroute command shares (a picocli mixin). Settings are layered:
 * defaults, then the {@code --config} properties file (same keys as every kvroute process), then
 * {@code KVROUTE_*} environment variables, then these options.
 */
public final class ConnectionOptions {
    public static final String DEFAULT_BOOTSTRAP_SERVERS = "127.0.0.1:9092";
    public static final String DEFAULT_REGISTRY_URL = "http://127.0.0.1:8081";

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT", description = "Kafka bootstrap servers (default " + DEFAULT_BOOTSTRAP_SERVERS + ").")
    String bootstrapServers;

    @Option(names = "--registry-url", paramLabel = "URL", description = "Schema registry URL, Confluent API (default " + DEFAULT_REGISTRY_URL + ").")
    String registryUrl;

    @Option(names = "--topic-prefix", paramLabel = "PREFIX", description = "Topic name prefix (default kvroute).")
    String topicPrefix;

    @Option(names = "--config", paramLabel = "FILE", description = "Properties file with kvroute settings (bootstrap.servers, schema.registry.url, kvroute.topic.prefix, ingress.*, kafka.*).")
    Path configFile;

    private final Map<String, String> environment;

    public ConnectionOptions() {
        this(System.getenv());
    }

    ConnectionOptions(Map<String, String> environment) {
        this.environment = environment;
    }

    public Settings settings(Map<String, String> commandOverrides) {
        Map<String, String> overrides = new HashMap<>(commandOverrides);
        overrides.put(ClientConfig.BOOTSTRAP_SERVERS, bootstrapServers);
        overrides.put(ClientConfig.SCHEMA_REGISTRY_URL, registryUrl);
        overrides.put(ClientConfig.TOPIC_PREFIX, topicPrefix);
        return Settings.builder()
                .defaults(Map.of(
                        ClientConfig.BOOTSTRAP_SERVERS, DEFAULT_BOOTSTRAP_SERVERS,
                        ClientConfig.SCHEMA_REGISTRY_URL, DEFAULT_REGISTRY_URL))
                .file(configFile)
                .environment(environment, "bootstrap.", "schema.", "basic.auth.", "bearer.auth.", "kvroute.", "ingress.", "kafka.")
                .overrides(overrides)
                .build();
    }

    public ClientConfig clientConfig(Map<String, String> commandOverrides) {
        return ClientConfig.from(settings(commandOverrides));
    }
}
