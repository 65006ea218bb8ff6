package io.kvroute.worker.engine.openai;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * A local HTTP server that stands in for vLLM or SGLang: it answers each request with a reply the
 * test picks from the path and body, replaying the recordings under {@code recordings/} byte for
 * byte, in small pieces so the client sees events split across reads.
 */
public final class ReplayServer implements AutoCloseable {
    /** Bytes per write: small, so events and UTF-8 characters straddle reads. */
    static final int PIECE_BYTES = 37;

    /** One received request. */
    public record Received(String path, String body, String authorization) {
    }

    /** What to answer. */
    public record Reply(int status, Map<String, String> headers, byte[] body, Mode mode) {
    }

    /** How to answer. */
    public enum Mode { REPLAY, STALL, ENDLESS, ENDLESS_LINE }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final CountDownLatch closing = new CountDownLatch(1);
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final AtomicInteger disconnects = new AtomicInteger();
    private volatile BiFunction<String, String, Reply> route;

    private ReplayServer(BiFunction<String, String, Reply> route) throws IOException {
        this.route = route;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    /** Starts on 127.0.0.1 at a free port; {@code route} maps (path, request body) to a reply. */
    public static ReplayServer start(BiFunction<String, String, Reply> route) {
        try {
            return new ReplayServer(route);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void route(BiFunction<String, String, Reply> newRoute) {
        this.route = newRoute;
    }

    public static byte[] recording(String name) {
        try (InputStream in = ReplayServer.class.getResourceAsStream("/recordings/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no recording " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Reply stream(String recording) {
        return new Reply(200, Map.of("Content-Type", "text/event-stream"), recording(recording), Mode.REPLAY);
    }

    public static Reply page(String recording) {
        return new Reply(200, Map.of("Content-Type", "text/plain; version=0.0.4; charset=utf-8"), recording(recording), Mode.REPLAY);
    }

    public static Reply error(int status, String recording, Map<String, String> headers) {
        return new Reply(status, headers, recording(recording), Mode.REPLAY);
    }

    /** Accepts the request and never answers (until the server closes). */
    public static Reply stall() {
        return new Reply(200, Map.of(), new byte[0], Mode.STALL);
    }

    /** Streams a delta every few ms until the client goes away, then counts a disconnect. */
    public static Reply endless() {
        return new Reply(200, Map.of("Content-Type", "text/event-stream"), new byte[0], Mode.ENDLESS);
    }

    /**
     * Writes one line that never ends: {@code prefix}, then 64 KiB pieces of 'x' without a newline
     * (up to 384 MiB) until the client goes away, then counts a disconnect.
     */
    public static Reply endlessLine(String contentType, String prefix) {
        return new Reply(200, Map.of("Content-Type", contentType), prefix.getBytes(StandardCharsets.UTF_8), Mode.ENDLESS_LINE);
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    public List<Received> received() {
        return List.copyOf(received);
    }

    /** Endless streams that ended because the client closed the connection. */
    public int disconnects() {
        return disconnects.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String path = exchange.getRequestURI().getPath();
            received.add(new Received(path, body, exchange.getRequestHeaders().getFirst("Authorization")));
            Reply reply = route.apply(path, body);
            if (reply.mode() == Mode.STALL) {
                closing.await(60, TimeUnit.SECONDS);
                return;
            }
            reply.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
            boolean endless = reply.mode() == Mode.ENDLESS || reply.mode() == Mode.ENDLESS_LINE;
            exchange.sendResponseHeaders(reply.status(), endless ? 0 : reply.body().length);
            OutputStream out = exchange.getResponseBody();
            if (reply.mode() == Mode.ENDLESS) {
                endless(out);
                return;
            }
            if (reply.mode() == Mode.ENDLESS_LINE) {
                endlessLine(out, reply.body());
                return;
            }
            for (int i = 0; i < reply.body().length; i += PIECE_BYTES) {
                out.write(reply.body(), i, Math.min(PIECE_BYTES, reply.body().length - i));
                out.flush();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            exchange.close();
        }
    }

    private void endless(OutputStream out) throws InterruptedException {
        byte[] event = "data: {\"id\":\"cmpl-x\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\" la\",\"finish_reason\":null}],\"usage\":null}\n\n"
                .getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 6_000; i++) {
            try {
                out.write(event);
                out.flush();
            } catch (IOException e) {
                disconnects.incrementAndGet();
                return;
            }
            if (closing.await(5, TimeUnit.MILLISECONDS)) {
                return;
            }
        }
    }

    private void endlessLine(OutputStream out, byte[] prefix) {
        byte[] piece = new byte[64 * 1024];
        java.util.Arrays.fill(piece, (byte) 'x');
        try {
            out.write(prefix);
            for (int i = 0; i < 6_144 && closing.getCount() > 0; i++) {
                out.write(piece);
                out.flush();
            }
        } catch (IOException e) {
            disconnects.incrementAndGet();
        }
    }

    @Override
    public void close() {
        closing.countDown();
        server.stop(0);
        executor.shutdownNow();
    }
}
