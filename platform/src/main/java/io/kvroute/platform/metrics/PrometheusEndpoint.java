package io.kvroute.platform.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.kvroute.platform.health.HealthStatus;
import io.kvroute.platform.health.ProcessHealth;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * A process's HTTP endpoint: its Micrometer registry in the Prometheus text format on
 * {@code /metrics}, and its probes on {@code /health/live} and {@code /health/ready} (200 with
 * {@code {"status":"UP",...}}, or 503 with {@code "DOWN"} and the reason). Port 0 picks a free port
 * ({@link #port()} tells which); a negative port means disabled.
 */
public final class PrometheusEndpoint implements AutoCloseable {
    private final PrometheusMeterRegistry registry;
    private final HttpServer server;

    private PrometheusEndpoint(PrometheusMeterRegistry registry, HttpServer server) {
        this.registry = registry;
        this.server = server;
    }

    public static PrometheusMeterRegistry newRegistry() {
        return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    }

    public static PrometheusEndpoint start(String host, int port, PrometheusMeterRegistry registry) {
        return start(host, port, registry, ProcessHealth.ALWAYS_UP);
    }

    public static PrometheusEndpoint start(String host, int port, PrometheusMeterRegistry registry, ProcessHealth health) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
            server.createContext("/metrics", exchange -> {
                byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            });
            server.createContext("/health/live", exchange -> serve(exchange, health.live()));
            server.createContext("/health/ready", exchange -> serve(exchange, health.ready()));
            server.start();
            return new PrometheusEndpoint(registry, server);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve metrics on " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    private static void serve(HttpExchange exchange, Supplier<HealthStatus> probe) throws IOException {
        HealthStatus status;
        try {
            status = probe.get();
        } catch (RuntimeException e) {
            status = HealthStatus.down("the check failed: " + e);
        }
        byte[] body = status.toJson().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status.up() ? 200 : 503, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
