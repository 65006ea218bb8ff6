package io.kvroute.platform.registry;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A persistent registry (the one {@code kvroute up} runs) keeps its schemas, ids included, across a restart. */
class ApicurioRegistryPersistenceIntegrationTest {
    private static final String SCHEMA = "{\"schema\": \"{\\\"type\\\":\\\"record\\\",\\\"name\\\":\\\"Probe\\\","
            + "\\\"fields\\\":[{\\\"name\\\":\\\"n\\\",\\\"type\\\":\\\"int\\\"}]}\"}";

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void shouldKeepRegisteredSchemasAndTheirIdsAcrossARestartOnTheSameDirectory(@TempDir Path dir) throws Exception {
        String registered;
        try (ApicurioRegistry registry = ApicurioRegistry.start(dir, 0, true)) {
            HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create(registry.url() + "/subjects/probe-value/versions"))
                    .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                    .POST(HttpRequest.BodyPublishers.ofString(SCHEMA)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(post.statusCode()).as(post.body()).isEqualTo(200);
            registered = post.body();
        }

        try (ApicurioRegistry again = ApicurioRegistry.start(dir, 0, true)) {
            HttpResponse<String> latest = http.send(HttpRequest.newBuilder(URI.create(again.url() + "/subjects/probe-value/versions/latest"))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());

            assertThat(latest.statusCode()).as(latest.body()).isEqualTo(200);
            assertThat(latest.body()).as("the id registered before the restart").contains(registered.replaceAll("[{}\\s]", ""));
        }
    }
}
