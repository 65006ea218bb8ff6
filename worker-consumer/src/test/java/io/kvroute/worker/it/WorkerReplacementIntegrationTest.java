package io.kvroute.worker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvroute.schemas.topics.RunAttempt;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.worker.WorkerApp;
import io.kvroute.worker.config.WorkerConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The router's re-placement markers on the real broker and registry: a voided attempt is stopped
 * or skipped without a result, the newer attempt runs and writes the one result.
 */
class WorkerReplacementIntegrationTest {
    private static final int LONG_MAX_TOKENS = 50_000;

    private DispatchFixture fixture;
    private WorkerApp worker;

    @BeforeEach
    void setUp() {
        fixture = new DispatchFixture("itr", 2, 1);
        Map<String, String> s = fixture.workerSettings("w-replace");
        s.put(WorkerConfig.SIM_MAX_RUNNING, "1");
        worker = DispatchFixture.startOwningOne(s);
    }

    @AfterEach
    void tearDown() {
        worker.close();
        fixture.close();
    }

    @Test
    void shouldStopARunningVoidedAttemptWithoutAResultAndRunTheNewerAttempt() throws Exception {
        fixture.send(dispatched("moved", LONG_MAX_TOKENS, 1), System.currentTimeMillis());
        await().atMost(Duration.ofSeconds(30)).until(() -> fixture.eventsOf("moved").size() >= 2);

        fixture.supersede("moved", 2);

        await().atMost(Duration.ofSeconds(10)).until(() -> worker.engine().snapshot().runningRequests() == 0);
        int streamed = fixture.eventsOf("moved").size();
        fixture.send(dispatched("moved", 5, 2), System.currentTimeMillis());

        await().atMost(Duration.ofSeconds(20)).until(() -> fixture.terminalsOf("moved").size() == 1);
        ResponseEvent terminal = fixture.terminalsOf("moved").get(0);
        assertThat(terminal.getTerminal().getStatus()).isEqualTo(ResponseStatus.COMPLETED);
        assertThat(RunAttempt.dispatchAttemptOf(terminal.getAttempt())).as("the result is the newer attempt's").isEqualTo(2);
        assertThat(fixture.eventsOf("moved").subList(0, streamed)).allSatisfy(e -> {
            assertThat(e.getTerminal()).as("the voided run wrote no result").isNull();
            assertThat(RunAttempt.dispatchAttemptOf(e.getAttempt())).isEqualTo(1);
        });
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> fixture.terminalsOf("moved").size() == 1);
    }

    @Test
    void shouldDropTheResultOfARunThatEndedBeforeItsMarkerArrivedButWasNotYetCommitted() throws Exception {
        worker.close();
        Map<String, String> s = fixture.workerSettings("w-replace-slow-commit");
        // results wait up to 4 s for their transaction: time for the marker to arrive after the run ended
        s.put(WorkerConfig.COMMIT_INTERVAL_MS, "4000");
        worker = DispatchFixture.startOwningOne(s);

        fixture.send(dispatched("ended", 3, 1), System.currentTimeMillis());
        await().atMost(Duration.ofSeconds(20)).until(() -> !fixture.eventsOf("ended").isEmpty()
                && worker.engine().snapshot().runningRequests() == 0);
        fixture.supersede("ended", 2);

        await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(8))
                .until(() -> fixture.terminalsOf("ended").isEmpty());
        fixture.send(dispatched("ended", 3, 2), System.currentTimeMillis());
        await().atMost(Duration.ofSeconds(20)).until(() -> fixture.terminalsOf("ended").size() == 1);
        assertThat(RunAttempt.dispatchAttemptOf(fixture.terminalsOf("ended").get(0).getAttempt())).isEqualTo(2);
    }

    @Test
    void shouldSkipAVoidedRecordThatWaitedInThePartitionAndGoOnWithTheNext() throws Exception {
        fixture.supersede("stale", 2);
        long longAgo = System.currentTimeMillis() - 60_000;
        fixture.send(dispatched("stale", 100, 1), longAgo);
        fixture.send(dispatched("after", 5, 1), System.currentTimeMillis());

        await().atMost(Duration.ofSeconds(20)).until(() -> fixture.terminalsOf("after").size() == 1);
        assertThat(fixture.terminalsOf("after").get(0).getTerminal().getStatus()).isEqualTo(ResponseStatus.COMPLETED);
        assertThat(fixture.eventsOf("stale")).as("a voided attempt is not run at all").isEmpty();
    }

    @Test
    void shouldStillRunAnAttemptAtOrAboveTheMarker() throws Exception {
        fixture.supersede("kept", 2);

        fixture.send(dispatched("kept", 5, 2), System.currentTimeMillis());

        await().atMost(Duration.ofSeconds(20)).until(() -> fixture.terminalsOf("kept").size() == 1);
        assertThat(fixture.terminalsOf("kept").get(0).getTerminal().getStatus()).isEqualTo(ResponseStatus.COMPLETED);
    }

    private static DispatchedRequest dispatched(String requestId, int maxTokens, int attempt) {
        return DispatchFixture.dispatched(requestId, maxTokens, attempt, "unknown");
    }
}
