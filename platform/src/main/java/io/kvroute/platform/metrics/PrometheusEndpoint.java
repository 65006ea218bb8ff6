package io.kvroute.platform.metrics;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * Serves a Micrometer registry in the Prometheus text format on {@code /metrics}. Port 0 picks
 * a free port ({@link #port()} tells which); a negative port means disabled.
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
            server.start();
            return new PrometheusEndpoint(registry, server);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve metrics on " + host + ":" + port + ": " + e.getMessage(), e);
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
