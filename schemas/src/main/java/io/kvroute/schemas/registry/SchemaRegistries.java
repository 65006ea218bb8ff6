package io.kvroute.schemas.registry;

import io.kvroute.schemas.serde.SerdeConfig;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Builds a registry client from the serde configuration: {@code schema.registry.url} is
 * {@code http(s)://...}, or {@code mock://scope} for tests, and the credential and TLS settings of
 * {@link RegistrySecurity} apply to an HTTP(S) registry.
 */
public final class SchemaRegistries {
    private static final Map<String, InMemorySchemaRegistryClient> MOCK_SCOPES = new ConcurrentHashMap<>();

    private SchemaRegistries() {
    }

    /** A client for a registry that needs no credentials and is trusted by the JVM's default trust store. */
    public static SchemaRegistryClient forUrl(String url) {
        return forConfig(url == null ? Map.of() : Map.of(SerdeConfig.SCHEMA_REGISTRY_URL, url));
    }

    /**
     * A client for the registry {@code config} names, with its credentials and trust; a bad setting
     * fails here with a {@link SchemaRegistryConfigException} naming the key, never a secret.
     */
    public static SchemaRegistryClient forConfig(Map<String, ?> config) {
        Object value = config.get(SerdeConfig.SCHEMA_REGISTRY_URL);
        String url = value == null ? null : value.toString().trim();
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("schema.registry.url is required and was empty");
        }
        RegistrySecurity security = RegistrySecurity.from(config);
        if (url.startsWith("mock://")) {
            return MOCK_SCOPES.computeIfAbsent(url, u -> new InMemorySchemaRegistryClient());
        }
        if (url.startsWith("http://") || url.startsWith("https://")) {
            return new HttpSchemaRegistryClient(url, security);
        }
        throw new IllegalArgumentException("schema.registry.url must start with http://, https:// or mock://, was '" + url + "'");
    }
}
