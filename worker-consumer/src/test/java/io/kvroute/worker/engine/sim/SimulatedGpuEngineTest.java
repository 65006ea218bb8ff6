package io.kvroute.worker.engine.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvroute.worker.engine.EngineListener;
import io.kvroute.worker.engine.EngineRequest;
import io.kvroute.worker.engine.EngineUsage;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SimulatedGpuEngineTest {

    private static final class Recorder implements EngineListener {
        final AtomicInteger tokens = new AtomicInteger();
        final StringBuilder text = new StringBuilder();
        final AtomicLong ttft = new AtomicLong(-1);
        final List<String> finishes = new CopyOnWriteArrayList<>();
        volatile EngineUsage usage;
        volatile String error;

        @Override
        public void onFirstToken(long ttftMs) {
            ttft.set(ttftMs);
        }

        @Override
        public synchronized void onTokens(String textDelta, int count) {
            text.append(textDelta);
            tokens.addAndGet(count);
        }

        @Override
        public void onFinished(String finishReason, EngineUsage usage, long ttftMs) {
            this.usage = usage;
            finishes.add(finishReason);
        }

        @Override
        public void onFailed(String error) {
            this.error = error;
        }
    }

    @Test
    void shouldStreamEveryTokenAndFinishOnce() {
        Clock clock = Clock.systemUTC();
        try (SimulatedGpuEngine engine = new SimulatedGpuEngine(CostModel.llama8bH100(20), EngineLimits.defaults(), 0, clock::millis, "t")) {
            Recorder a = new Recorder();
            Recorder b = new Recorder();
            engine.submit(new EngineRequest("a", 1, 500, 30, new long[] {1, 2}, 64, clock.millis()), a);
            engine.submit(new EngineRequest("b", 1, 300, 10, new long[] {1, 2}, 64, clock.millis()), b);

            await().atMost(Duration.ofSeconds(10)).until(() -> a.finishes.size() == 1 && b.finishes.size() == 1);
            assertThat(a.tokens).hasValue(30);
            assertThat(b.tokens).hasValue(10);
            assertThat(a.usage).isEqualTo(new EngineUsage(500, 30, 0));
            assertThat(a.text.toString()).isNotBlank();
            assertThat(engine.snapshot().runningRequests()).isZero();
            assertThat(engine.drainKvChanges().stored()).containsExactlyInAnyOrder(1L, 2L);
        }
    }

    @Test
    void shouldAddTheNetworkDelayBothWaysToTtft() {
        Clock clock = Clock.systemUTC();
        try (SimulatedGpuEngine engine = new SimulatedGpuEngine(CostModel.llama8bH100(20), EngineLimits.defaults(), 60, clock::millis, "t")) {
            Recorder r = new Recorder();
            engine.submit(new EngineRequest("a", 1, 100, 2, new long[0], 64, clock.millis()), r);
            assertThat(engine.snapshot().waitingRequests()).isEqualTo(1);

            await().atMost(Duration.ofSeconds(10)).until(() -> r.finishes.size() == 1);
            assertThat(r.ttft.get()).isGreaterThanOrEqualTo(120);
        }
    }

    @Test
    void shouldFailARequestThatCannotFit() {
        Clock clock = Clock.systemUTC();
        try (SimulatedGpuEngine engine = new SimulatedGpuEngine(CostModel.llama8bH100(), new EngineLimits(16, 4, 512), 0, clock::millis, "t")) {
            Recorder r = new Recorder();
            engine.submit(new EngineRequest("huge", 1, 10_000, 2, new long[0], 64, clock.millis()), r);
            await().atMost(Duration.ofSeconds(5)).until(() -> r.error != null);
            assertThat(r.error).contains("KV blocks");
        }
    }

    @Test
    void shouldStopReportingACancelledRequest() {
        Clock clock = Clock.systemUTC();
        try (SimulatedGpuEngine engine = new SimulatedGpuEngine(CostModel.llama8bH100(), EngineLimits.defaults(), 0, clock::millis, "t")) {
            Recorder r = new Recorder();
            engine.submit(new EngineRequest("a", 1, 100, 100_000, new long[0], 64, clock.millis()), r);
            await().atMost(Duration.ofSeconds(5)).until(() -> r.tokens.get() > 0);
            engine.cancel("a");
            await().atMost(Duration.ofSeconds(5)).until(() -> engine.snapshot().runningRequests() == 0);
            assertThat(engine.snapshot().kvBlocksUsed()).isZero();
            assertThat(r.finishes).isEmpty();
        }
    }
}
