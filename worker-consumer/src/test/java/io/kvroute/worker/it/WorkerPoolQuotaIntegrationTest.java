package io.kvroute.worker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.WorkerStatus;
import io.kvroute.worker.WorkerApp;
import io.kvroute.worker.config.WorkerConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A worker in front of a pool with a quota, on the real broker: beyond it requests wait and telemetry says rate limited. */
class WorkerPoolQuotaIntegrationTest {
    private DispatchFixture fixture;
    private WorkerApp worker;

    @BeforeEach
    void setUp() {
        fixture = new DispatchFixture("itq", 2, 1);
        Map<String, String> s = fixture.workerSettings("w-quota");
        s.put(WorkerConfig.POOL_REQUESTS_PER_MINUTE, "2");
        s.put(WorkerConfig.TELEMETRY_INTERVAL_MS, "100");
        worker = DispatchFixture.startOwningOne(s);
    }

    @AfterEach
    void tearDown() {
        worker.close();
        fixture.close();
    }

    @Test
    void shouldHoldRequestsBeyondThePoolQuotaAndReportTheWorkerRateLimited() throws Exception {
        long before = System.currentTimeMillis();
        fixture.send(DispatchFixture.dispatched("first", 5, 1, "w-quota"));
        fixture.send(DispatchFixture.dispatched("second", 5, 1, "w-quota"));
        fixture.send(DispatchFixture.dispatched("third", 5, 1, "w-quota"));

        await().atMost(Duration.ofSeconds(20)).until(() -> fixture.terminalsOf("first").size() == 1
                && fixture.terminalsOf("second").size() == 1);
        assertThat(fixture.terminalsOf("first").get(0).getTerminal().getStatus()).isEqualTo(ResponseStatus.COMPLETED);
        await().atMost(Duration.ofSeconds(10)).until(() -> fixture.telemetry().poll().stream()
                .anyMatch(t -> t.getStatus() == WorkerStatus.DEGRADED && t.getRateLimitedUntilMs() != null
                        && t.getRateLimitedUntilMs() > before + 20_000));
        assertThat(fixture.eventsOf("third")).as("the third waits for the pool's quota").isEmpty();
        assertThat(worker.engine().snapshot().waitingRequests()).isEqualTo(1);
    }
}
