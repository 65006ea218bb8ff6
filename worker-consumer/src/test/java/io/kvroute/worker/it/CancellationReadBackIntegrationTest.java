package io.kvroute.worker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvroute.platform.config.Settings;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.worker.WorkerApp;
import io.kvroute.worker.config.WorkerConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Cancels written before a worker started, on the real broker and registry: those within the
 * worker's look-back are applied to the dispatch records it then reads (as when it takes over a
 * dead worker's partition), older ones are left to the router.
 */
class CancellationReadBackIntegrationTest {
    private static final long LOOKBACK_MS = 600_000;

    private DispatchFixture fixture;
    private WorkerApp worker;

    @BeforeEach
    void setUp() {
        fixture = new DispatchFixture("itb", 2, 1);
    }

    @AfterEach
    void tearDown() {
        if (worker != null) {
            worker.close();
        }
        fixture.close();
    }

    @Test
    void shouldApplyCancelsWrittenWithinTheLookbackBeforeItStartedAndIgnoreOlderOnes() throws Exception {
        long now = System.currentTimeMillis();
        // in write order, as time stamps go: the look-back finds its start by time stamp
        fixture.cancel("ancient", now - LOOKBACK_MS - 3_600_000);
        fixture.cancel("recent", now - 60_000);
        fixture.send(dispatched("recent", 100));
        fixture.send(dispatched("kept", 5));

        worker = WorkerApp.start(Settings.of(settings()));

        assertThat(worker.isCancelled("recent")).as("read back before the worker polls its dispatch partitions").isTrue();
        assertThat(worker.isCancelled("ancient")).isFalse();
        await().atMost(Duration.ofSeconds(30)).until(() -> fixture.terminalsOf("recent").size() == 1 && fixture.terminalsOf("kept").size() == 1);
        assertThat(fixture.eventsOf("recent")).singleElement().satisfies(e -> {
            assertThat(e.getTerminal().getStatus()).isEqualTo(ResponseStatus.CANCELLED);
            assertThat(e.getTerminal().getUsage().getCompletionTokens()).as("never ran").isZero();
        });
        assertThat(fixture.terminalsOf("kept").get(0).getTerminal().getStatus()).isEqualTo(ResponseStatus.COMPLETED);
    }

    @Test
    void shouldReadOnlyNewCancelsWithALookbackOfZero() throws Exception {
        fixture.cancel("before", System.currentTimeMillis() - 1_000);
        Map<String, String> settings = settings();
        settings.put(WorkerConfig.CANCELLATION_LOOKBACK_MS, "0");

        worker = WorkerApp.start(Settings.of(settings));
        fixture.cancel("after", System.currentTimeMillis());

        await().atMost(Duration.ofSeconds(20)).until(() -> worker.isCancelled("after"));
        assertThat(worker.isCancelled("before")).isFalse();
    }

    private Map<String, String> settings() {
        Map<String, String> s = fixture.workerSettings("w-readback");
        s.put(WorkerConfig.CANCELLATION_LOOKBACK_MS, Long.toString(LOOKBACK_MS));
        return s;
    }

    private static DispatchedRequest dispatched(String requestId, int maxTokens) {
        return DispatchFixture.dispatched(requestId, maxTokens, 1, "a-worker-that-died");
    }
}
