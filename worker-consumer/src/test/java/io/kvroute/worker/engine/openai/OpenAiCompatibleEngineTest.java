package io.kvroute.worker.engine.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvroute.worker.engine.EngineFailure;
import io.kvroute.worker.engine.openai.internal.SseDecoder;
import io.kvroute.worker.engine.EnginePrompt;
import io.kvroute.worker.engine.EngineRequest;
import io.kvroute.worker.engine.EngineUsage;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OpenAiCompatibleEngineTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final LongSupplier SYSTEM_CLOCK = java.time.Clock.systemUTC()::millis;

    private ReplayServer server;
    private OpenAiCompatibleEngine engine;

    @AfterEach
    void tearDown() {
        if (engine != null) {
            engine.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private OpenAiCompatibleEngine engine(ReplayServer.Reply reply, int maxConcurrency, long timeoutMs, LongSupplier clock) {
        server = ReplayServer.start((path, body) -> reply);
        return engine(server.uri(), maxConcurrency, timeoutMs, clock);
    }

    private OpenAiCompatibleEngine engine(URI endpoint, int maxConcurrency, long timeoutMs, LongSupplier clock) {
        engine = new OpenAiCompatibleEngine(new OpenAiSettings(endpoint, "served-model", null, maxConcurrency, timeoutMs,
                2_000, 0, 5_000), clock, "test");
        return engine;
    }

    private static EngineRequest completion(String id) {
        return new EngineRequest(id, 1, 300, 64, new long[0], 64, 0,
                new EnginePrompt("llama-3.1-8b", "The capital of France is", null, 0.2, 0.9, 7L, List.of("\n\n")));
    }

    private static EngineRequest chat(String id) {
        return new EngineRequest(id, 1, 40, 32, new long[0], 64, 0,
                EnginePrompt.chat("llama-3.1-8b", List.of(new EnginePrompt.Message("system", "Be brief."),
                        new EnginePrompt.Message("user", "Hi there"))));
    }

    private static RecordingListener run(OpenAiCompatibleEngine engine, EngineRequest request) {
        RecordingListener listener = new RecordingListener();
        engine.submit(request, listener);
        await().atMost(WAIT).until(listener::ended);
        return listener;
    }

    @Test
    void shouldStreamAVllmCompletionWithUsageAndCachedTokens() throws IOException {
        engine(ReplayServer.stream("vllm-0.9-completions-stream.txt"), 4, 10_000, SYSTEM_CLOCK);
        RecordingListener listener = run(engine, completion("r-1"));

        assertThat(listener.failure).isNull();
        assertThat(listener.text.toString()).isEqualTo(" Paris is the capital of France.");
        assertThat(listener.events).startsWith("first", "tokens").endsWith("finished").hasSize(1 + 7 + 1);
        assertThat(listener.finishReason).isEqualTo("stop");
        assertThat(listener.usage).isEqualTo(new EngineUsage(1312, 7, 1280));
        assertThat(listener.ttftMs).isEqualTo(listener.firstTokenTtftMs).isNotNegative();

        ReplayServer.Received received = server.received().get(0);
        assertThat(received.path()).isEqualTo("/v1/completions");
        JsonNode body = JSON.readTree(received.body());
        assertThat(body.get("model").asText()).isEqualTo("served-model");
        assertThat(body.get("prompt").asText()).isEqualTo("The capital of France is");
        assertThat(body.get("max_tokens").asInt()).isEqualTo(64);
        assertThat(body.get("stream").asBoolean()).isTrue();
        assertThat(body.get("stream_options").get("include_usage").asBoolean()).isTrue();
        assertThat(body.get("temperature").asDouble()).isEqualTo(0.2);
        assertThat(body.get("top_p").asDouble()).isEqualTo(0.9);
        assertThat(body.get("seed").asLong()).isEqualTo(7);
        assertThat(body.get("stop").get(0).asText()).isEqualTo("\n\n");
        assertThat(body.has("messages")).isFalse();
    }

    private static EngineRequest salted(String id, String cacheSalt) {
        return new EngineRequest(id, 1, 40, 32, new long[] {1, 2}, 64, 0,
                new EnginePrompt("llama-3.1-8b", null, List.of(new EnginePrompt.Message("user", "Hi there")), null, null, null,
                        List.of(), cacheSalt));
    }

    @Test
    void shouldSendTheRequestsCacheSaltInTheConfiguredField() throws IOException {
        server = ReplayServer.start((path, body) -> ReplayServer.stream("vllm-0.9-chat-stream.txt"));
        engine = new OpenAiCompatibleEngine(OpenAiSettings.defaults(server.uri(), "served-model"), SYSTEM_CLOCK, "test");

        run(engine, salted("r-salt-1", "9968a4cfb543259b18ea8ded1028ba8e"));
        run(engine, chat("r-salt-2"));

        List<ReplayServer.Received> chats = server.received().stream().filter(r -> r.path().equals("/v1/chat/completions")).toList();
        assertThat(chats).hasSize(2);
        assertThat(JSON.readTree(chats.get(0).body()).get("cache_salt").asText()).isEqualTo("9968a4cfb543259b18ea8ded1028ba8e");
        assertThat(JSON.readTree(chats.get(1).body()).has("cache_salt")).as("a request without a salt").isFalse();
    }

    @Test
    void shouldSendNoCacheSaltWhenItsFieldIsEmpty() throws IOException {
        server = ReplayServer.start((path, body) -> ReplayServer.stream("vllm-0.9-chat-stream.txt"));
        engine = new OpenAiCompatibleEngine(OpenAiSettings.defaults(server.uri(), "served-model").withCacheSaltField(""),
                SYSTEM_CLOCK, "test");

        RecordingListener listener = run(engine, salted("r-salt-3", "9968a4cfb543259b18ea8ded1028ba8e"));

        assertThat(listener.failure).isNull();
        ReplayServer.Received sent = server.received().stream().filter(r -> r.path().equals("/v1/chat/completions")).findFirst()
                .orElseThrow();
        assertThat(JSON.readTree(sent.body()).has("cache_salt")).isFalse();
        assertThat(sent.body()).doesNotContain("9968a4cfb543259b18ea8ded1028ba8e");
    }

    @Test
    void shouldStreamAVllmChatCompletion() throws IOException {
        engine(ReplayServer.stream("vllm-0.9-chat-stream.txt"), 4, 10_000, SYSTEM_CLOCK);
        RecordingListener listener = run(engine, chat("r-2"));

        assertThat(listener.text.toString()).isEqualTo("Hello! How can I help you today?");
        assertThat(listener.tokenEvents()).isEqualTo(9);
        assertThat(listener.finishReason).isEqualTo("stop");
        assertThat(listener.usage).isEqualTo(new EngineUsage(42, 10, 32));
        ReplayServer.Received received = server.received().get(0);
        assertThat(received.path()).isEqualTo("/v1/chat/completions");
        JsonNode body = JSON.readTree(received.body());
        assertThat(body.get("messages").get(1).get("role").asText()).isEqualTo("user");
        assertThat(body.get("messages").get(1).get("content").asText()).isEqualTo("Hi there");
        assertThat(body.has("prompt")).isFalse();
        assertThat(body.has("temperature")).isFalse();
    }

    @Test
    void shouldStreamAnSglangChatCompletion() {
        engine(ReplayServer.stream("sglang-0.4-chat-stream.txt"), 4, 10_000, SYSTEM_CLOCK);
        RecordingListener listener = run(engine, chat("r-3"));

        assertThat(listener.text.toString()).isEqualTo("Sure, here is a haiku:");
        assertThat(listener.finishReason).isEqualTo("length");
        assertThat(listener.usage).isEqualTo(new EngineUsage(25, 7, 16));
    }

    @Test
    void shouldStreamAnSglangCompletionWithoutCachedTokenDetails() {
        engine(ReplayServer.stream("sglang-0.4-completions-stream.txt"), 4, 10_000, SYSTEM_CLOCK);
        RecordingListener listener = run(engine, completion("r-4"));

        assertThat(listener.text.toString()).isEqualTo(" 4.\n");
        assertThat(listener.finishReason).isEqualTo("stop");
        assertThat(listener.usage).isEqualTo(new EngineUsage(9, 3, 0));
    }

    @Test
    void shouldFailRetryablyWhenTheStreamEndsBeforeDone() {
        engine(ReplayServer.stream("vllm-0.9-completions-stream-cut.txt"), 4, 10_000, SYSTEM_CLOCK);
        RecordingListener listener = run(engine, completion("r-5"));

        assertThat(listener.failure.kind()).isEqualTo(EngineFailure.Kind.STREAM_BROKEN);
        assertThat(listener.failure.retryable()).isTrue();
        assertThat(listener.text.toString()).isEqualTo(" Paris is the");
        assertThat(listener.events).doesNotContain("finished");
    }

    @Test
    void shouldFailAStreamWhoseLineNeverEndsOnceItPassesTheBoundAndHangUp() {
        engine(ReplayServer.endlessLine("text/event-stream", "data: {\"choices\":[{\"text\":\""), 4, 60_000, SYSTEM_CLOCK);

        RecordingListener listener = run(engine, completion("r-huge"));

        assertThat(listener.failure.kind()).isEqualTo(EngineFailure.Kind.STREAM_BROKEN);
        assertThat(listener.failure.message()).contains("line longer than " + SseDecoder.MAX_LINE_BYTES + " bytes");
        await().atMost(WAIT).until(() -> server.disconnects() == 1);
    }

    @Test
    void shouldReportA429AsRateLimitedUntilRetryAfter() {
        AtomicLong now = new AtomicLong(1_000_000);
        engine(ReplayServer.error(429, "error-429.json", Map.of("Retry-After", "3", "Content-Type", "application/json")),
                4, 10_000, now::get);
        RecordingListener listener = run(engine, completion("r-6"));

        assertThat(listener.failure.kind()).isEqualTo(EngineFailure.Kind.RATE_LIMITED);
        assertThat(listener.failure.retryable()).isTrue();
        assertThat(listener.failure.message()).contains("Too many requests");
        assertThat(engine.rateLimitedUntilMs()).isEqualTo(1_003_000);
        assertThat(engine.isDegraded()).isTrue();
        now.set(1_003_000);
        assertThat(engine.isDegraded()).isFalse();
    }

    @Test
    void shouldCoolDownForTheDefaultWhenA429HasNoRetryAfter() {
        AtomicLong now = new AtomicLong(2_000_000);
        engine(ReplayServer.error(429, "error-429.json", Map.of()), 4, 10_000, now::get);
        run(engine, completion("r-7"));

        assertThat(engine.rateLimitedUntilMs()).isEqualTo(2_005_000);
    }

    @Test
    void shouldFailRetryablyOnAServerError() {
        engine(ReplayServer.error(500, "error-500.txt", Map.of("Content-Type", "text/plain")), 4, 10_000, SYSTEM_CLOCK);
        RecordingListener listener = run(engine, completion("r-8"));

        assertThat(listener.failure.kind()).isEqualTo(EngineFailure.Kind.SERVER_ERROR);
        assertThat(listener.failure.retryable()).isTrue();
        assertThat(listener.failure.message()).contains("500").contains("Internal Server Error");
        assertThat(engine.rateLimitedUntilMs()).isZero();
    }

    @Test
    void shouldRejectABadRequestWithTheServersMessage() {
        engine(ReplayServer.error(400, "vllm-0.9-error-400.json", Map.of("Content-Type", "application/json")), 4, 10_000, SYSTEM_CLOCK);
        RecordingListener listener = run(engine, completion("r-9"));

        assertThat(listener.failure.kind()).isEqualTo(EngineFailure.Kind.REJECTED);
        assertThat(listener.failure.retryable()).isFalse();
        assertThat(listener.failure.message()).contains("maximum context length is 8192 tokens");
    }

    @Test
    void shouldRejectWithTheMessageOfAnOpenAiShapedErrorBody() {
        engine(ReplayServer.error(400, "vllm-0.11-error-400.json", Map.of()), 4, 10_000, SYSTEM_CLOCK);
        RecordingListener listener = run(engine, completion("r-10"));

        assertThat(listener.failure.kind()).isEqualTo(EngineFailure.Kind.REJECTED);
        assertThat(listener.failure.message()).contains("max_tokens must be at least 1, got 0.");
    }

    @Test
    void shouldTimeOutASlowServer() {
        engine(ReplayServer.stall(), 4, 300, SYSTEM_CLOCK);
        RecordingListener listener = run(engine, completion("r-11"));

        assertThat(listener.failure.kind()).isEqualTo(EngineFailure.Kind.TIMEOUT);
        assertThat(listener.failure.retryable()).isTrue();
        await().atMost(WAIT).until(() -> engine.inFlight() == 0);
    }

    @Test
    void shouldFailRetryablyWhenTheConnectionIsRefused() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        engine(URI.create("http://127.0.0.1:" + port), 4, 10_000, SYSTEM_CLOCK);
        RecordingListener listener = run(engine, completion("r-12"));

        assertThat(listener.failure.kind()).isEqualTo(EngineFailure.Kind.UNAVAILABLE);
        assertThat(listener.failure.retryable()).isTrue();
    }

    @Test
    void shouldCloseTheStreamWhenCancelled() {
        engine(ReplayServer.endless(), 4, 30_000, SYSTEM_CLOCK);
        RecordingListener listener = new RecordingListener();
        engine.submit(completion("r-13"), listener);
        await().atMost(WAIT).until(() -> listener.tokenEvents() >= 3);

        engine.cancel("r-13");

        await().atMost(WAIT).until(() -> server.disconnects() == 1);
        assertThat(engine.inFlight()).isZero();
        assertThat(listener.ended()).isFalse();
    }

    @Test
    void shouldKeepAtMostMaxConcurrencyRequestsInFlightAndQueueTheRest() {
        engine(ReplayServer.endless(), 2, 30_000, SYSTEM_CLOCK);
        for (int i = 0; i < 5; i++) {
            engine.submit(completion("c-" + i), new RecordingListener());
        }
        await().atMost(WAIT).until(() -> server.received().size() == 2);
        assertThat(engine.inFlight()).isEqualTo(2);
        assertThat(engine.waitingRequests()).isEqualTo(3);
        assertThat(engine.snapshot().waitingRequests()).isEqualTo(3);
        assertThat(engine.snapshot().runningRequests()).isEqualTo(2);
        assertThat(engine.snapshot().maxRunningRequests()).isEqualTo(2);

        engine.cancel("c-0");

        await().atMost(WAIT).until(() -> server.received().size() == 3);
        assertThat(engine.waitingRequests()).isEqualTo(2);
        assertThat(engine.inFlight()).isEqualTo(2);
        engine.cancel("c-3");
        assertThat(engine.waitingRequests()).isEqualTo(1);
    }

    @Test
    void shouldRejectARequestWithoutPromptText() {
        engine(ReplayServer.stream("vllm-0.9-completions-stream.txt"), 4, 10_000, SYSTEM_CLOCK);
        RecordingListener listener = new RecordingListener();
        engine.submit(new EngineRequest("r-14", 1, 10, 10, new long[0], 64, 0), listener);

        assertThat(listener.failure.kind()).isEqualTo(EngineFailure.Kind.REJECTED);
        assertThat(server.received()).isEmpty();
    }

    @Test
    void shouldFailRetryablyOnAnErrorInsideTheStream() {
        byte[] body = ("data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\" Par\","
                + "\"finish_reason\":null}],\"usage\":null}\n\n"
                + "data: {\"error\":{\"message\":\"EngineCore encountered an issue\",\"type\":\"InternalServerError\",\"code\":500}}\n\n"
                + "data: [DONE]\n\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        engine(new ReplayServer.Reply(200, Map.of(), body, ReplayServer.Mode.REPLAY), 4, 10_000, SYSTEM_CLOCK);
        RecordingListener listener = run(engine, completion("r-15"));

        assertThat(listener.failure.kind()).isEqualTo(EngineFailure.Kind.SERVER_ERROR);
        assertThat(listener.failure.message()).contains("EngineCore encountered an issue");
        assertThat(listener.events).containsExactly("first", "tokens", "failed");
    }

    @Test
    void shouldFailRetryablyOnAnOldLlamaCppErrorEventDespiteTheDoneThatFollows() {
        engine(ReplayServer.stream("llamacpp-b4500-chat-stream-error.txt"), 4, 10_000, SYSTEM_CLOCK);
        RecordingListener listener = run(engine, chat("r-18"));

        assertThat(listener.failure.kind()).isEqualTo(EngineFailure.Kind.SERVER_ERROR);
        assertThat(listener.failure.retryable()).isTrue();
        assertThat(listener.failure.message()).contains("Compute error.");
        assertThat(listener.events).containsExactly("first", "tokens", "tokens", "tokens", "failed");
    }

    @Test
    void shouldFailRetryablyOnALlamaCppErrorObjectThatClosesTheStream() {
        engine(ReplayServer.stream("llamacpp-b6500-chat-stream-error.txt"), 4, 10_000, SYSTEM_CLOCK);
        RecordingListener listener = run(engine, chat("r-19"));

        assertThat(listener.failure.kind()).isEqualTo(EngineFailure.Kind.SERVER_ERROR);
        assertThat(listener.failure.message()).contains("Compute error.");
        assertThat(listener.events).containsExactly("first", "tokens", "tokens", "failed");
    }

    @Test
    void shouldRejectAnErrorEventThatBlamesTheRequest() {
        byte[] body = ("data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"content\":\"The\"}}],"
                + "\"object\":\"chat.completion.chunk\"}\n\n"
                + "event: error\ndata: {\"error\":{\"code\":400,\"message\":\"the request exceeds the available context size, "
                + "try increasing it\",\"type\":\"exceed_context_size_error\"}}\n\n"
                + "data: [DONE]\n\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        engine(new ReplayServer.Reply(200, Map.of(), body, ReplayServer.Mode.REPLAY), 4, 10_000, SYSTEM_CLOCK);
        RecordingListener listener = run(engine, chat("r-20"));

        assertThat(listener.failure.kind()).isEqualTo(EngineFailure.Kind.REJECTED);
        assertThat(listener.failure.message()).contains("exceeds the available context size");
        assertThat(listener.events).containsExactly("first", "tokens", "failed");
    }

    @Test
    void shouldCountReasoningDeltasAsGeneratedTokensFromTheFirst() {
        engine(ReplayServer.stream("vllm-0.9-chat-stream-reasoning.txt"), 4, 10_000, SYSTEM_CLOCK);
        RecordingListener listener = run(engine, chat("r-21"));

        assertThat(listener.failure).isNull();
        assertThat(listener.events.get(0)).as("the first token is the first reasoning delta").isEqualTo("first");
        assertThat(listener.deltas).hasSize(6 + 7).startsWith("", "", "", "", "", "", "Hi");
        assertThat(listener.text.toString()).isEqualTo("Hi! How can I help?");
        assertThat(listener.usage).isEqualTo(new EngineUsage(18, 16, 0));
    }

    @Test
    void shouldCountToolCallDeltasAsTokensWhenTheServerSendsNoUsage() {
        String recording = new String(ReplayServer.recording("sglang-0.4-chat-stream-tool-calls.txt"), java.nio.charset.StandardCharsets.UTF_8);
        String withoutUsage = recording.lines().filter(line -> !line.contains("\"usage\":{")).map(line -> line + "\n")
                .collect(java.util.stream.Collectors.joining());
        engine(new ReplayServer.Reply(200, Map.of(), withoutUsage.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                ReplayServer.Mode.REPLAY), 4, 10_000, SYSTEM_CLOCK);
        RecordingListener listener = run(engine, chat("r-22"));

        assertThat(listener.failure).isNull();
        assertThat(listener.events).startsWith("first", "tokens").endsWith("finished");
        assertThat(listener.tokenEvents()).as("the tool's name and five argument fragments").isEqualTo(6);
        assertThat(listener.text.toString()).isEmpty();
        assertThat(listener.finishReason).isEqualTo("tool_calls");
        assertThat(listener.usage).isEqualTo(new EngineUsage(40, 6, 0));
    }

    @Test
    void shouldSendTheApiKeyAsABearerToken() {
        server = ReplayServer.start((path, body) -> ReplayServer.stream("vllm-0.9-completions-stream.txt"));
        engine = new OpenAiCompatibleEngine(new OpenAiSettings(server.uri(), "m", "sk-test-key", 4, 10_000, 2_000, 0, 5_000),
                SYSTEM_CLOCK, "test");
        run(engine, completion("r-16"));

        assertThat(server.received().get(0).authorization()).isEqualTo("Bearer sk-test-key");
        assertThat(engine.toString()).doesNotContain("sk-test-key");
    }

    @Test
    void shouldCloseTheConnectionOfATimedOutRequest() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            java.util.concurrent.CompletableFuture<Integer> readAfterTimeout = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try (java.net.Socket socket = silent.accept()) {
                    java.io.InputStream in = socket.getInputStream();
                    byte[] buffer = new byte[8192];
                    int n;
                    do {
                        n = in.read(buffer);
                    } while (n > 0);
                    return n;
                } catch (IOException e) {
                    return -2;
                }
            });
            engine(URI.create("http://127.0.0.1:" + silent.getLocalPort()), 4, 300, SYSTEM_CLOCK);
            RecordingListener listener = run(engine, completion("r-17"));

            assertThat(listener.failure.kind()).isEqualTo(EngineFailure.Kind.TIMEOUT);
            assertThat(readAfterTimeout.get(10, java.util.concurrent.TimeUnit.SECONDS)).as("server sees end of stream or reset").isLessThan(0);
        }
    }
}
