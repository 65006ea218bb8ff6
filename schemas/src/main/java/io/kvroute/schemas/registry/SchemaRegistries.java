package io.kvroute.schemas.registry;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Builds a registry client from a URL: {@code http(s)://...} or {@code mock://scope} for tests. */
public final class SchemaRegistries {
    private static final Map<String, InMemorySchemaRegistryClient> MOCK_SCOPES = new ConcurrentHashMap<>();

    private SchemaRegistries() {
    }

    public static SchemaRegistryClient forUrl(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("schema.registry.url is required and was empty");
        }
        if (url.startsWith("mock://")) {
            return MOCK_SCOPES.computeIfAbsent(url, u -> new InMemorySchemaRegistryClient());
        }
        if (url.startsWith("http://") || url.startsWith("https://")) {
            return new HttpSchemaRegistryClient(url);
        }
        throw new IllegalArgumentException("schema.registry.url must start with http://, https:// or mock://, was '" + url + "'");
    }
}
