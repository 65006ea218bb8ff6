package io.kvroute.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HttpSchemaRegistryClientTest {
    private HttpServer server;
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicLong now = new AtomicLong(1_000_000);

    @AfterEach
    void stop() {
        server.stop(0);
    }

    /** A registry on 127.0.0.1 answering every request with {@code status} and {@code body}. */
    private String registry(int status, String body) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        server.createContext("/", exchange -> {
            calls.incrementAndGet();
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private HttpSchemaRegistryClient client(String url) {
        return new HttpSchemaRegistryClient(url, Duration.ofSeconds(5), Duration.ofMillis(HttpSchemaRegistryClient.DEFAULT_UNKNOWN_ID_TTL_MS),
                now::get);
    }

    @Test
    void shouldRememberAnUnknownSchemaIdForAWhileInsteadOfAskingPerRecord() throws IOException {
        HttpSchemaRegistryClient client = client(registry(404, "{\"error_code\":40403,\"message\":\"Schema not found\"}"));

        for (int i = 0; i < 100; i++) {
            assertThatThrownBy(() -> client.getById(4242)).isInstanceOf(UnknownSchemaIdException.class);
        }
        assertThat(calls.get()).as("one lookup for 100 records naming the same unknown id").isEqualTo(1);

        now.addAndGet(HttpSchemaRegistryClient.DEFAULT_UNKNOWN_ID_TTL_MS + 1);
        assertThatThrownBy(() -> client.getById(4242)).isInstanceOf(UnknownSchemaIdException.class);
        assertThat(calls.get()).as("asked again once the memory has expired (the id may have been registered since)").isEqualTo(2);
    }

    @Test
    void shouldReportARegistryRefusingTheCredentialsAsAConfigurationErrorNotAnOutage() throws IOException {
        String url = registry(401, "{\"error_code\":401,\"message\":\"Unauthorized\"}");
        HttpSchemaRegistryClient client = client(url);

        assertThatThrownBy(() -> client.getById(1))
                .isInstanceOf(SchemaRegistryAuthException.class)
                .hasMessageContaining("HTTP 401")
                .hasMessageContaining(url)
                .hasMessageContaining("a configuration error, not an outage")
                .satisfies(e -> assertThat(SchemaRegistryException.isConfigurationError(e)).isTrue());
    }

    @Test
    void shouldReportAForbiddenRegistrationAsAConfigurationError() throws IOException {
        HttpSchemaRegistryClient client = client(registry(403, "{\"error_code\":403,\"message\":\"Forbidden\"}"));

        assertThatThrownBy(() -> client.register("kvroute.requests-value", org.apache.avro.Schema.create(org.apache.avro.Schema.Type.STRING)))
                .hasMessageContaining("HTTP 403")
                .satisfies(e -> assertThat(SchemaRegistryException.isConfigurationError(e)).isTrue());
    }

    @Test
    void shouldStillTreatAnUnreachableRegistryAsAnOutage() throws IOException {
        String url = registry(200, "{}");
        server.stop(0);
        HttpSchemaRegistryClient client = client(url);

        assertThatThrownBy(() -> client.getById(1)).satisfies(e -> {
            assertThat(SchemaRegistryException.isOutage(e)).isTrue();
            assertThat(SchemaRegistryException.isConfigurationError(e)).isFalse();
        });
    }
}
