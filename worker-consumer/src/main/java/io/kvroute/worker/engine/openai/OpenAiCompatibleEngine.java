package io.kvroute.worker.engine.openai;

import io.kvroute.worker.engine.EngineFailure;
import io.kvroute.worker.engine.EngineListener;
import io.kvroute.worker.engine.EngineRequest;
import io.kvroute.worker.engine.EngineStats;
import io.kvroute.worker.engine.EngineUsage;
import io.kvroute.worker.engine.InferenceEngine;
import io.kvroute.worker.engine.openai.internal.OpenAiJson;
import io.kvroute.worker.engine.openai.internal.RetryAfter;
import io.kvroute.worker.engine.openai.internal.SseDecoder;
import io.kvroute.worker.engine.openai.internal.TokenRate;
import java.io.ByteArrayOutputStream;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link InferenceEngine} that drives an OpenAI-compatible server (vLLM, SGLang, llama.cpp):
 * each request is one streaming POST to {@code /v1/completions} (a prompt) or
 * {@code /v1/chat/completions} (messages) with {@code stream_options.include_usage}, whose
 * server-sent events are handed to the listener as they arrive. At most
 * {@link OpenAiSettings#maxConcurrency()} requests are in flight (over HTTP/1.1, one pooled
 * connection each); more wait here and count as waiting, which pauses the dispatch consumer.
 *
 * <p>Failures are classified ({@link EngineFailure}): a connection refused, a 5xx, a stream that
 * ends before {@code data: [DONE]} and a timeout are retryable; a 429 is retryable and starts a
 * cool-down ({@code Retry-After}, or the configured default) reported by {@link #rateLimitedUntilMs()};
 * any other 4xx is a rejection carrying the server's message. An error the server reports inside
 * the stream (a {@code data:} object with an {@code error} field, or an SSE {@code error} event as
 * older llama.cpp builds send it) ends the request failed, never as a normal stop with the partial
 * text, even when {@code data: [DONE]} follows. Cancelling closes the stream, so
 * the server aborts the request. Load comes from the server's {@code /metrics}
 * ({@link ServerMetricsScraper}) combined with this engine's own queue; an unreadable page makes
 * the engine {@link #isDegraded() degraded}, and a server that tells no KV use is reported with KV
 * use not known ({@link EngineStats#kvReported()}), never as an empty cache. TTFT counts from sending the request to the first
 * generated delta: answer text, reasoning or a tool call. Prompt and completion text are never logged.
 */
public final class OpenAiCompatibleEngine implements InferenceEngine {
    private static final Logger LOG = LoggerFactory.getLogger(OpenAiCompatibleEngine.class);
    /** KV capacity reported when the server gives a usage share but not its size: usage in units of 1/10,000. */
    public static final long KV_USAGE_SCALE = 10_000;
    public static final int DEFAULT_KV_BLOCK_TOKENS = 16;
    static final int MAX_ERROR_BODY_BYTES = 64 * 1024;

    private final OpenAiSettings settings;
    private final LongSupplier clock;
    private final ExecutorService httpExecutor;
    private final HttpClient client;
    private final ScheduledExecutorService timers;
    private final ServerMetricsScraper scraper;
    private final TokenRate tokenRate = new TokenRate();
    private final Object lock = new Object();
    private final ArrayDeque<Call> queue = new ArrayDeque<>();
    private final Set<Call> running = new LinkedHashSet<>();
    private long rateLimitedUntilMs;
    private long promptTokensFinished;
    private long cachedTokensFinished;
    private boolean closed;

    public OpenAiCompatibleEngine(OpenAiSettings settings, LongSupplier clock, String name) {
        this.settings = settings;
        this.clock = clock;
        AtomicInteger threads = new AtomicInteger();
        this.httpExecutor = Executors.newCachedThreadPool(r -> daemon(r, "openai-http-" + name + "-" + threads.incrementAndGet()));
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofMillis(settings.connectTimeoutMs()))
                .executor(httpExecutor)
                .build();
        this.timers = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "openai-timeouts-" + name));
        if (settings.metricsIntervalMs() > 0) {
            this.scraper = new ServerMetricsScraper(settings.resolve("/metrics"), settings.resolve("/slots"), client,
                    settings.apiKey(), settings.metricsIntervalMs());
            this.scraper.start(settings.metricsIntervalMs(), name);
        } else {
            this.scraper = null;
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    @Override
    public void submit(EngineRequest request, EngineListener listener) {
        if (request.prompt() == null) {
            listener.onFailure(new EngineFailure(EngineFailure.Kind.REJECTED, "request carries no prompt text"));
            return;
        }
        Call call = new Call(request, listener);
        List<Call> toStart;
        synchronized (lock) {
            if (closed) {
                toStart = null;
            } else {
                queue.addLast(call);
                toStart = admit();
            }
        }
        if (toStart == null) {
            listener.onFailure(new EngineFailure(EngineFailure.Kind.ENGINE, "engine is closed"));
            return;
        }
        toStart.forEach(this::start);
    }

    /** Moves queued calls into the running set while there is room; call with the lock held. */
    private List<Call> admit() {
        List<Call> admitted = new ArrayList<>();
        while (running.size() < settings.maxConcurrency() && !queue.isEmpty()) {
            Call next = queue.pollFirst();
            running.add(next);
            admitted.add(next);
        }
        return admitted;
    }

    private void release(Call call) {
        List<Call> toStart;
        synchronized (lock) {
            if (!running.remove(call) || closed) {
                return;
            }
            toStart = admit();
        }
        toStart.forEach(this::start);
    }

    private void start(Call call) {
        EngineRequest request = call.request;
        HttpRequest.Builder http = HttpRequest.newBuilder(settings.resolve(OpenAiJson.path(request.prompt())))
                .header("Content-Type", "application/json")
                .header("Accept", "text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofByteArray(OpenAiJson.requestBody(request, settings.model(), settings.cacheSaltField())));
        if (settings.apiKey() != null) {
            http.header("Authorization", "Bearer " + settings.apiKey());
        }
        call.sentAtMs = clock.getAsLong();
        try {
            call.timeout = timers.schedule(() -> fail(call, new EngineFailure(EngineFailure.Kind.TIMEOUT,
                    "no complete answer within " + settings.requestTimeoutMs() + " ms")), settings.requestTimeoutMs(), TimeUnit.MILLISECONDS);
            CompletableFuture<HttpResponse<Void>> response = client.sendAsync(http.build(),
                    info -> HttpResponse.BodySubscribers.fromSubscriber(new StreamSubscriber(call, info)));
            call.response = response;
            response.whenComplete((r, error) -> {
                if (error != null) {
                    fail(call, classify(call, error));
                }
            });
            if (call.cancelled) {
                abort(call);
            }
        } catch (RuntimeException e) {
            fail(call, new EngineFailure(EngineFailure.Kind.ENGINE, "request could not be sent: " + e));
        }
    }

    private static EngineFailure classify(Call call, Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof CancellationException) {
            return new EngineFailure(EngineFailure.Kind.ENGINE, "request cancelled");
        }
        if (call.headersReceived) {
            return new EngineFailure(EngineFailure.Kind.STREAM_BROKEN, "stream broke after " + call.tokens + " deltas: " + cause);
        }
        if (cause instanceof HttpConnectTimeoutException || cause instanceof ConnectException) {
            return new EngineFailure(EngineFailure.Kind.UNAVAILABLE, "cannot connect to the server: " + cause);
        }
        if (cause instanceof HttpTimeoutException) {
            return new EngineFailure(EngineFailure.Kind.TIMEOUT, "no response: " + cause);
        }
        return new EngineFailure(EngineFailure.Kind.UNAVAILABLE, "no response from the server: " + cause);
    }

    private void fail(Call call, EngineFailure failure) {
        synchronized (call) {
            if (call.done) {
                return;
            }
            call.done = true;
            if (!call.cancelled) {
                LOG.debug("request {} failed ({})", call.request.key(), failure.kind());
                notify(call, () -> call.listener.onFailure(failure));
            }
        }
        abort(call);
        release(call);
    }

    private void finish(Call call) {
        EngineUsage usage;
        synchronized (call) {
            if (call.done) {
                return;
            }
            call.done = true;
            OpenAiJson.Usage reported = call.usage;
            usage = reported == null ? new EngineUsage(call.request.promptTokens(), call.tokens, 0)
                    : new EngineUsage(reported.promptTokens(), reported.completionTokens(), Math.min(reported.cachedTokens(), reported.promptTokens()));
            long ttft = call.ttftMs >= 0 ? call.ttftMs : clock.getAsLong() - call.sentAtMs;
            String reason = call.finishReason == null ? "stop" : call.finishReason;
            if (!call.cancelled) {
                notify(call, () -> call.listener.onFinished(reason, usage, ttft));
            }
        }
        synchronized (lock) {
            promptTokensFinished += usage.promptTokens();
            cachedTokensFinished += usage.cachedTokens();
        }
        if (call.timeout != null) {
            call.timeout.cancel(false);
        }
        release(call);
    }

    private void delta(Call call, String text) {
        synchronized (call) {
            if (call.done || call.cancelled) {
                return;
            }
            long now = clock.getAsLong();
            if (call.ttftMs < 0) {
                call.ttftMs = now - call.sentAtMs;
                notify(call, () -> call.listener.onFirstToken(call.ttftMs));
            }
            call.tokens++;
            tokenRate.add(now, 1);
            notify(call, () -> call.listener.onTokens(text, 1));
        }
    }

    private static void notify(Call call, Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            LOG.warn("listener of {} failed: {}", call.request.key(), e.toString());
        }
    }

    /** Closes the call's stream, or stops its send; the server sees the connection close and aborts. */
    private static void abort(Call call) {
        if (call.timeout != null) {
            call.timeout.cancel(false);
        }
        Flow.Subscription subscription = call.subscription;
        if (subscription != null) {
            subscription.cancel();
        }
        CompletableFuture<?> response = call.response;
        if (response != null) {
            response.cancel(true);
        }
    }

    /** Extends the cool-down to {@code untilMs}; true if the engine was not cooling down at {@code nowMs}. */
    private boolean rateLimited(long nowMs, long untilMs) {
        synchronized (lock) {
            boolean started = rateLimitedUntilMs <= nowMs;
            rateLimitedUntilMs = Math.max(rateLimitedUntilMs, untilMs);
            return started;
        }
    }

    @Override
    public void cancel(String requestId) {
        List<Call> cancelled = new ArrayList<>();
        synchronized (lock) {
            queue.removeIf(c -> c.request.requestId().equals(requestId));
            running.stream().filter(c -> c.request.requestId().equals(requestId)).forEach(cancelled::add);
        }
        for (Call call : cancelled) {
            call.cancelled = true;
            abort(call);
            release(call);
        }
    }

    @Override
    public EngineStats snapshot() {
        int ownRunning;
        int ownWaiting;
        long queuedPromptTokens = 0;
        double ownHitRate;
        synchronized (lock) {
            ownRunning = running.size();
            ownWaiting = queue.size();
            for (Call c : queue) {
                queuedPromptTokens += c.request.promptTokens();
            }
            ownHitRate = promptTokensFinished == 0 ? 0.0 : (double) cachedTokensFinished / promptTokensFinished;
        }
        ServerMetrics server = scraper == null ? null : scraper.latest();
        int runningRequests = server != null && server.running() != null ? server.running() : ownRunning;
        int waiting = ownWaiting + (server != null && server.waiting() != null ? server.waiting() : 0);
        // a server that tells no KV use reports a capacity of 0: KV use not known (EngineStats#kvReported), not an empty cache
        long blocksTotal = 0;
        long blocksUsed = 0;
        int blockTokens = DEFAULT_KV_BLOCK_TOKENS;
        if (server != null && server.kvUsage() != null) {
            blocksTotal = server.kvBlocksTotal() != null && server.kvBlocksTotal() > 0 ? server.kvBlocksTotal() : KV_USAGE_SCALE;
            blocksUsed = Math.round(Math.max(0, Math.min(1, server.kvUsage())) * blocksTotal);
            blockTokens = server.kvBlockTokens() != null && server.kvBlockTokens() > 0 ? server.kvBlockTokens() : DEFAULT_KV_BLOCK_TOKENS;
        }
        double hitRate = server != null && server.prefixHitRate() != null ? server.prefixHitRate() : ownHitRate;
        return new EngineStats(runningRequests, waiting, 0, runningRequests, queuedPromptTokens, blocksUsed, blocksTotal,
                blockTokens, settings.maxConcurrency(), hitRate, tokenRate.perSecond(clock.getAsLong()));
    }

    @Override
    public int waitingRequests() {
        int own;
        synchronized (lock) {
            own = queue.size();
        }
        ServerMetrics server = scraper == null ? null : scraper.latest();
        return own + (server != null && server.waiting() != null ? server.waiting() : 0);
    }

    /** Requests sent to the server and not finished, this engine's own count. */
    public int inFlight() {
        synchronized (lock) {
            return running.size();
        }
    }

    @Override
    public long rateLimitedUntilMs() {
        synchronized (lock) {
            return rateLimitedUntilMs;
        }
    }

    @Override
    public boolean isDegraded() {
        return scraper != null && scraper.failing() || clock.getAsLong() < rateLimitedUntilMs();
    }

    /** Known only from the metrics scrape: when scraping is off, the server counts as reachable. */
    @Override
    public String unreachable() {
        return scraper != null && scraper.failing() ? "cannot read the server's metrics: " + scraper.lastError() : null;
    }

    /** The metrics scraper, or null when scraping is off. */
    public ServerMetricsScraper scraper() {
        return scraper;
    }

    /** Drops queued requests and closes every stream, without calling their listeners. */
    @Override
    public void close() {
        List<Call> open;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            open = new ArrayList<>(running);
            open.addAll(queue);
            queue.clear();
            running.clear();
        }
        for (Call call : open) {
            call.cancelled = true;
            abort(call);
        }
        if (scraper != null) {
            scraper.close();
        }
        timers.shutdownNow();
        httpExecutor.shutdownNow();
    }

    /** One request in flight or waiting. Stream state is guarded by the call's monitor. */
    private static final class Call {
        final EngineRequest request;
        final EngineListener listener;
        volatile boolean cancelled;
        volatile boolean headersReceived;
        volatile Flow.Subscription subscription;
        volatile CompletableFuture<?> response;
        volatile ScheduledFuture<?> timeout;
        long sentAtMs;
        boolean done;
        long ttftMs = -1;
        int tokens;
        String finishReason;
        OpenAiJson.Usage usage;

        Call(EngineRequest request, EngineListener listener) {
            this.request = request;
            this.listener = listener;
        }
    }

    /** Receives one response body: the event stream of a 200, or the error body of anything else. */
    private final class StreamSubscriber implements Flow.Subscriber<List<ByteBuffer>> {
        private final Call call;
        private final int status;
        private final String retryAfter;
        private final SseDecoder decoder;
        private final ByteArrayOutputStream errorBody = new ByteArrayOutputStream();
        private boolean sawEnd;

        StreamSubscriber(Call call, HttpResponse.ResponseInfo info) {
            this.call = call;
            this.status = info.statusCode();
            this.retryAfter = info.headers().firstValue("Retry-After").orElse(null);
            this.decoder = status == 200 ? new SseDecoder(this::event) : null;
            call.headersReceived = true;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            call.subscription = subscription;
            if (call.cancelled || isDone()) {
                subscription.cancel();
            } else {
                subscription.request(Long.MAX_VALUE);
            }
        }

        private boolean isDone() {
            synchronized (call) {
                return call.done;
            }
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            if (call.cancelled) {
                return;
            }
            try {
                for (ByteBuffer buffer : buffers) {
                    if (decoder != null) {
                        decoder.feed(buffer);
                    } else if (errorBody.size() < MAX_ERROR_BODY_BYTES) {
                        byte[] bytes = new byte[Math.min(buffer.remaining(), MAX_ERROR_BODY_BYTES - errorBody.size())];
                        buffer.get(bytes);
                        errorBody.write(bytes, 0, bytes.length);
                    }
                }
            } catch (IllegalArgumentException e) {
                fail(call, new EngineFailure(EngineFailure.Kind.STREAM_BROKEN, "unreadable stream event: " + e.getMessage()));
            }
        }

        private void event(String type, String data) {
            if (sawEnd) {
                return;
            }
            if (type.equals(SseDecoder.ERROR)) {
                streamFailed(OpenAiJson.streamError(data));
                return;
            }
            if (data.strip().equals("[DONE]")) {
                sawEnd = true;
                finish(call);
                return;
            }
            OpenAiJson.Chunk chunk = OpenAiJson.chunk(data);
            if (chunk.error() != null) {
                streamFailed(chunk.error());
                return;
            }
            if (chunk.generated()) {
                // the delta's text is the answer text only: reasoning and tool-call deltas count as tokens (TTFT, chunks,
                // usage) with empty text, as the response carries one text and a client reads it as the answer
                delta(call, chunk.text() == null ? "" : chunk.text());
            }
            synchronized (call) {
                if (chunk.finishReason() != null) {
                    call.finishReason = chunk.finishReason();
                }
                if (chunk.usage() != null) {
                    call.usage = chunk.usage();
                }
            }
        }

        /**
         * Ends the call on an error the server reported mid-stream: a request error (4xx, context exceeded) is a
         * rejection; anything else is a server failure retried like a 5xx, since another try, on a recovered or
         * another server, may well succeed where this engine step failed. The server's [DONE] that may follow is
         * not a normal end.
         */
        private void streamFailed(OpenAiJson.StreamError error) {
            sawEnd = true;
            fail(call, error.requestError()
                    ? new EngineFailure(EngineFailure.Kind.REJECTED, "server rejected the request in the stream: " + error.message())
                    : new EngineFailure(EngineFailure.Kind.SERVER_ERROR, "server error in the stream: " + error.message()));
        }

        @Override
        public void onError(Throwable error) {
            fail(call, status == 200
                    ? new EngineFailure(EngineFailure.Kind.STREAM_BROKEN, "stream broke after " + call.tokens + " deltas: " + error)
                    : failureOf(status, "(body cut: " + error + ")"));
        }

        @Override
        public void onComplete() {
            if (status == 200) {
                if (!sawEnd) {
                    fail(call, new EngineFailure(EngineFailure.Kind.STREAM_BROKEN,
                            "stream ended before data: [DONE] after " + call.tokens + " deltas"));
                }
                return;
            }
            fail(call, failureOf(status, OpenAiJson.errorMessage(errorBody.toString(StandardCharsets.UTF_8))));
        }

        private EngineFailure failureOf(int status, String message) {
            if (status == 429) {
                long now = clock.getAsLong();
                long delay = RetryAfter.delayMs(retryAfter, now).orElse(settings.rateLimitCooldownMs());
                if (rateLimited(now, now + delay)) {
                    LOG.warn("server {} is rate limiting (HTTP 429); cooling down for {} ms", settings.endpoint(), delay);
                }
                return new EngineFailure(EngineFailure.Kind.RATE_LIMITED, "server rate limit (HTTP 429), retry after "
                        + delay + " ms: " + message);
            }
            if (status >= 500) {
                return new EngineFailure(EngineFailure.Kind.SERVER_ERROR, "HTTP " + status + ": " + message);
            }
            if (status >= 400) {
                return new EngineFailure(EngineFailure.Kind.REJECTED, "server rejected the request (HTTP " + status + "): " + message);
            }
            return new EngineFailure(EngineFailure.Kind.SERVER_ERROR, "unexpected HTTP " + status + ": " + message);
        }
    }
}
