package io.kvroute.worker.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PoolQuotaEngineTest {
    private static final long T0 = 1_000_000;

    private final AtomicLong clock = new AtomicLong(T0);
    private final RecordingEngine delegate = new RecordingEngine();

    private static EngineRequest request(String id, int prompt, int maxTokens) {
        return new EngineRequest(id, 1, prompt, maxTokens, new long[0], 64, T0);
    }

    private static final EngineListener NO_LISTENER = new EngineListener() {
        @Override
        public void onFirstToken(long ttftMs) {
        }

        @Override
        public void onTokens(String textDelta, int count) {
        }

        @Override
        public void onFinished(String finishReason, EngineUsage usage, long ttftMs) {
        }

        @Override
        public void onFailed(String error) {
        }
    };

    @Test
    void shouldStartRequestsWithinTheRequestsPerMinuteAndHoldTheRestUntilTheBucketRefills() {
        PoolQuotaEngine engine = new PoolQuotaEngine(delegate, 2, 0, clock::get, false);

        engine.submit(request("a", 10, 10), NO_LISTENER);
        engine.submit(request("b", 10, 10), NO_LISTENER);
        engine.submit(request("c", 10, 10), NO_LISTENER);

        assertThat(delegate.started).containsExactly("a", "b");
        assertThat(engine.waitingRequests()).isEqualTo(1);
        assertThat(engine.isDegraded()).isTrue();
        assertThat(engine.rateLimitedUntilMs()).as("one request refills in half a minute").isEqualTo(T0 + 30_000);

        clock.addAndGet(29_000);
        engine.startDue();
        assertThat(delegate.started).containsExactly("a", "b");

        clock.addAndGet(1_000);
        engine.startDue();
        assertThat(delegate.started).containsExactly("a", "b", "c");
        assertThat(engine.rateLimitedUntilMs()).isZero();
        assertThat(engine.isDegraded()).isFalse();
    }

    @Test
    void shouldReserveTokensPerMinuteAndKeepArrivalOrder() {
        PoolQuotaEngine engine = new PoolQuotaEngine(delegate, 0, 1_000, clock::get, false);

        engine.submit(request("big", 500, 300), NO_LISTENER);
        engine.submit(request("second", 150, 100), NO_LISTENER);
        engine.submit(request("small", 10, 10), NO_LISTENER);

        assertThat(delegate.started).as("a small one does not jump the queue").containsExactly("big");
        clock.addAndGet(3_000);
        engine.startDue();
        assertThat(delegate.started).containsExactly("big", "second");
    }

    @Test
    void shouldStartARequestLargerThanAMinutesAllowanceWhenTheBucketIsFull() {
        PoolQuotaEngine engine = new PoolQuotaEngine(delegate, 0, 1_000, clock::get, false);

        engine.submit(request("huge", 4_000, 1_000), NO_LISTENER);
        engine.submit(request("next", 10, 10), NO_LISTENER);

        assertThat(delegate.started).containsExactly("huge");
        clock.addAndGet(60_000);
        engine.startDue();
        assertThat(delegate.started).as("the debt of 4,000 tokens takes more than a minute to repay").containsExactly("huge");
    }

    @Test
    void shouldDropACancelledWaitingRequestAndPassTheCancelOn() {
        PoolQuotaEngine engine = new PoolQuotaEngine(delegate, 1, 0, clock::get, false);
        engine.submit(request("a", 10, 10), NO_LISTENER);
        engine.submit(request("b", 10, 10), NO_LISTENER);

        engine.cancel("b");
        clock.addAndGet(60_000);
        engine.startDue();

        assertThat(delegate.started).containsExactly("a");
        assertThat(delegate.cancelled).containsExactly("b");
        assertThat(engine.waitingRequests()).isZero();
    }

    /** Records what reaches it. */
    private static final class RecordingEngine implements InferenceEngine {
        final List<String> started = new ArrayList<>();
        final List<String> cancelled = new ArrayList<>();

        @Override
        public void submit(EngineRequest request, EngineListener listener) {
            started.add(request.requestId());
        }

        @Override
        public void cancel(String requestId) {
            cancelled.add(requestId);
        }

        @Override
        public EngineStats snapshot() {
            return new EngineStats(0, 0, 0, 0, 0, 0, 100, 16, 8, 0, 0);
        }

        @Override
        public void close() {
        }
    }
}
