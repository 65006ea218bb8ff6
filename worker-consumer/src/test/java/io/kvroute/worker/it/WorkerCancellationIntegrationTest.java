package io.kvroute.worker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.worker.WorkerApp;
import io.kvroute.worker.config.WorkerConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Cancels reaching a worker on the real broker and registry: mid-run, while queued, and before the dispatch record. */
class WorkerCancellationIntegrationTest {
    private static final int LONG_MAX_TOKENS = 50_000;

    private DispatchFixture fixture;
    private WorkerApp worker;

    @BeforeEach
    void setUp() {
        fixture = new DispatchFixture("itc", 2, 1);
        Map<String, String> s = fixture.workerSettings("w-cancel");
        s.put(WorkerConfig.SIM_MAX_RUNNING, "1");
        worker = DispatchFixture.startOwningOne(s);
    }

    @AfterEach
    void tearDown() {
        worker.close();
        fixture.close();
    }

    @Test
    void shouldAbortARunningRequestAndAQueuedOneWithOneCancelledTerminalEach() throws Exception {
        fixture.send(dispatched("long", LONG_MAX_TOKENS));
        fixture.send(dispatched("queued", LONG_MAX_TOKENS));
        await().atMost(Duration.ofSeconds(30)).until(() -> fixture.eventsOf("long").size() >= 2);

        fixture.cancel("queued", System.currentTimeMillis());
        fixture.cancel("long", System.currentTimeMillis());

        await().atMost(Duration.ofSeconds(20)).until(() -> fixture.terminalsOf("long").size() == 1 && fixture.terminalsOf("queued").size() == 1);
        ResponseEvent terminal = fixture.terminalsOf("long").get(0);
        assertThat(terminal.getTerminal().getStatus()).isEqualTo(ResponseStatus.CANCELLED);
        assertThat(terminal.getTerminal().getFinishReason()).isEqualTo("cancelled");
        assertThat(terminal.getTerminal().getWorkerId()).isEqualTo("w-cancel");
        int tokens = terminal.getTerminal().getUsage().getCompletionTokens();
        assertThat(tokens).as("usage counts the tokens streamed before the cancel").isPositive().isLessThan(LONG_MAX_TOKENS);
        List<Integer> chunkSequences = fixture.eventsOf("long").stream().filter(e -> e.getTerminal() == null)
                .map(ResponseEvent::getSequence).distinct().sorted().toList();
        assertThat(chunkSequences).as("every chunk is written before the terminal, numbered after them")
                .isEqualTo(IntStream.range(0, terminal.getSequence()).boxed().toList());
        Map<Integer, String> chunks = new TreeMap<>();
        fixture.eventsOf("long").stream().filter(e -> e.getTerminal() == null).forEach(e -> chunks.put(e.getSequence(), e.getTextDelta()));
        String text = String.join("", chunks.values());
        assertThat(text.split(" ", -1)).as("the chunks hold exactly the tokens counted").hasSize(tokens + 1);

        ResponseEvent queued = fixture.terminalsOf("queued").get(0);
        assertThat(queued.getTerminal().getStatus()).isEqualTo(ResponseStatus.CANCELLED);
        assertThat(queued.getSequence()).isZero();
        assertThat(fixture.eventsOf("queued")).as("a request cancelled while queued streams nothing").hasSize(1);

        int seen = fixture.eventsOf("long").size();
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                .until(() -> fixture.eventsOf("long").size() == seen && fixture.eventsOf("queued").size() == 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> worker.engine().snapshot().runningRequests() == 0
                && worker.engine().snapshot().waitingRequests() == 0);
    }

    @Test
    void shouldAnswerCancelledWithoutRunningWhenTheCancelCameBeforeTheDispatchRecord() throws Exception {
        fixture.cancel("never", System.currentTimeMillis());
        await().atMost(Duration.ofSeconds(20)).until(() -> worker.isCancelled("never"));

        fixture.send(dispatched("never", 100));
        fixture.send(dispatched("after", 5));

        await().atMost(Duration.ofSeconds(20)).until(() -> fixture.terminalsOf("never").size() == 1 && fixture.terminalsOf("after").size() == 1);
        assertThat(fixture.eventsOf("never")).singleElement().satisfies(e -> {
            assertThat(e.getSequence()).isZero();
            assertThat(e.getTerminal().getStatus()).isEqualTo(ResponseStatus.CANCELLED);
            assertThat(e.getTerminal().getFinishReason()).isEqualTo("cancelled");
            assertThat(e.getTerminal().getUsage().getCompletionTokens()).isZero();
        });
        assertThat(fixture.terminalsOf("after").get(0).getTerminal().getStatus()).isEqualTo(ResponseStatus.COMPLETED);
    }

    private static DispatchedRequest dispatched(String requestId, int maxTokens) {
        return DispatchFixture.dispatched(requestId, maxTokens, 1, "unknown");
    }
}
