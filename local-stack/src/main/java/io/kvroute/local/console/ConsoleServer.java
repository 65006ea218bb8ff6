package io.kvroute.local.console;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's HTTP side, on the JDK's server bound to 127.0.0.1: the page (one HTML file, a
 * script and a style sheet from the jar) on {@code /}, {@code /fleet}, {@code /decisions},
 * {@code /request/ID} and {@code /dlq}, and the JSON it renders on {@code /api/...}. GET only; a
 * {@code Host} other than the loopback is refused (a DNS-rebinding page cannot read the API), and a
 * content security policy keeps the page to its own origin.
 */
final class ConsoleServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsoleServer.class);
    private static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);
    private static final Set<String> PAGES = Set.of("/", "/fleet", "/decisions", "/request", "/dlq");
    private static final Map<String, String> ASSETS = Map.of(
            "/static/app.js", "text/javascript; charset=utf-8",
            "/static/style.css", "text/css; charset=utf-8",
            "/static/favicon.svg", "image/svg+xml");
    private static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
            + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
    static final int MAX_DECISIONS_SHOWN = 500;
    static final int MAX_DEAD_LETTERS_SHOWN = 500;
    private static final int STORY_READS_AT_ONCE = 2;

    private final HttpServer server;
    private final ExecutorService executor;
    private final FleetView fleet;
    private final DecisionLog decisions;
    private final DeadLetterLog deadLetters;
    private final RequestStories stories;
    private final Supplier<Map<String, Object>> info;
    private final Semaphore storyReads = new Semaphore(STORY_READS_AT_ONCE);

    ConsoleServer(int port, FleetView fleet, DecisionLog decisions, DeadLetterLog deadLetters, RequestStories stories,
                  Supplier<Map<String, Object>> info) {
        this.fleet = fleet;
        this.decisions = decisions;
        this.deadLetters = deadLetters;
        this.stories = stories;
        this.info = info;
        try {
            this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve the console on 127.0.0.1:" + port + " (" + e.getMessage()
                    + "); is another console running? Give another --port (0: any free)", e);
        }
        AtomicInteger threads = new AtomicInteger();
        this.executor = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "kvroute-console-http-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
    }

    ConsoleServer start() {
        server.start();
        return this;
    }

    int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
            exchange.getResponseHeaders().set("Referrer-Policy", "no-referrer");
            exchange.getResponseHeaders().set("Content-Security-Policy", CSP);
            String method = exchange.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                send(exchange, 405, "text/plain; charset=utf-8", "read-only: GET only\n".getBytes(StandardCharsets.UTF_8));
                return;
            }
            if (!loopbackHost(exchange.getRequestHeaders().getFirst("Host"))) {
                send(exchange, 421, "text/plain; charset=utf-8", "this console answers to 127.0.0.1 and localhost only\n"
                        .getBytes(StandardCharsets.UTF_8));
                return;
            }
            URI uri = exchange.getRequestURI();
            String path = uri.getPath();
            try {
                route(exchange, path, query(uri.getRawQuery()));
            } catch (IllegalArgumentException e) {
                json(exchange, 400, Map.of("error", e.getMessage()));
            } catch (RuntimeException e) {
                LOG.warn("console: {} failed: {}", path, e.toString());
                json(exchange, 500, Map.of("error", e.getClass().getSimpleName() + ": " + e.getMessage()));
            }
        }
    }

    private void route(HttpExchange exchange, String path, Map<String, String> query) throws IOException {
        if (path.equals("/api/fleet")) {
            json(exchange, 200, fleet.snapshot());
        } else if (path.equals("/api/decisions")) {
            DecisionLog.Filter filter = new DecisionLog.Filter(query.get("tenant"), query.get("region"), query.get("outcome"), query.get("request"));
            json(exchange, 200, decisions.snapshot(filter, limit(query, 100, MAX_DECISIONS_SHOWN)));
        } else if (path.equals("/api/dlq")) {
            json(exchange, 200, deadLetters.snapshot(limit(query, 100, MAX_DEAD_LETTERS_SHOWN)));
        } else if (path.equals("/api/info")) {
            json(exchange, 200, info.get());
        } else if (path.startsWith("/api/request/")) {
            String id = URLDecoder.decode(path.substring("/api/request/".length()), StandardCharsets.UTF_8);
            if (!storyReads.tryAcquire()) {
                json(exchange, 503, Map.of("error", "the console is reading " + STORY_READS_AT_ONCE + " stories already; try again"));
                return;
            }
            try {
                json(exchange, 200, stories.read(id));
            } finally {
                storyReads.release();
            }
        } else if (ASSETS.containsKey(path)) {
            asset(exchange, path.substring("/static/".length()), ASSETS.get(path));
        } else if (PAGES.contains(path) || path.startsWith("/request/")) {
            asset(exchange, "index.html", "text/html; charset=utf-8");
        } else {
            send(exchange, 404, "text/plain; charset=utf-8", "not found\n".getBytes(StandardCharsets.UTF_8));
        }
    }

    private static int limit(Map<String, String> query, int fallback, int max) {
        String value = query.get("limit");
        if (value == null || value.isEmpty()) {
            return fallback;
        }
        try {
            int limit = Integer.parseInt(value);
            if (limit >= 1 && limit <= max) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // falls through to the message
        }
        throw new IllegalArgumentException("limit must be 1-" + max + ", was '" + value + "'");
    }

    private static boolean loopbackHost(String host) {
        if (host == null) {
            return true;
        }
        String name = host.startsWith("[") ? host.substring(0, host.indexOf(']') + 1) : host.replaceFirst(":\\d+$", "");
        return name.equals("127.0.0.1") || name.equalsIgnoreCase("localhost") || name.equals("[::1]");
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new HashMap<>();
        if (raw == null) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static void asset(HttpExchange exchange, String name, String type) throws IOException {
        try (InputStream in = ConsoleServer.class.getResourceAsStream("/console/" + name)) {
            if (in == null) {
                send(exchange, 404, "text/plain; charset=utf-8", ("missing asset " + name + "\n").getBytes(StandardCharsets.UTF_8));
                return;
            }
            send(exchange, 200, type, in.readAllBytes());
        }
    }

    private static void json(HttpExchange exchange, int status, Object body) throws IOException {
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        send(exchange, status, "application/json", JSON.writeValueAsBytes(body));
    }

    private static void send(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
