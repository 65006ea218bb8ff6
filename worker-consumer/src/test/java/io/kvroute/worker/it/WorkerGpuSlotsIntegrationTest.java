package io.kvroute.worker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvroute.schemas.topics.RunAttempt;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.WorkerTelemetry;
import io.kvroute.worker.WorkerApp;
import io.kvroute.worker.config.WorkerConfig;
import io.kvroute.worker.engine.InferenceEngine;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One worker process serving two GPU slots from one dispatch partition, on the real broker: each slot is a worker of
 * its own in telemetry (both owning the partition), a record runs on the slot it names, and a record naming a slot the
 * process does not have (placed while another process owned the partition) still runs, once; a cancel or a
 * re-placement marker stops the run on the slot it runs on.
 */
class WorkerGpuSlotsIntegrationTest {
    private DispatchFixture fixture;
    private WorkerApp worker;

    @BeforeEach
    void setUp() {
        fixture = new DispatchFixture("itg", 2, 1);
        Map<String, String> s = fixture.workerSettings("node-a");
        s.put(WorkerConfig.GPUS, "2");
        s.put(WorkerConfig.TELEMETRY_INTERVAL_MS, "100");
        s.put(WorkerConfig.SIM_SPEED, "20");
        worker = DispatchFixture.startOwningOne(s);
    }

    @AfterEach
    void tearDown() {
        worker.close();
        fixture.close();
    }

    @Test
    void shouldRunEachRecordOnTheSlotItNamesAndPublishEverySlotsTelemetry() throws Exception {
        await().atMost(Duration.ofSeconds(10)).until(() -> slotsOwningPartitionZero().keySet().containsAll(List.of("node-a-g0", "node-a-g1")));
        assertThat(slotsOwningPartitionZero()).doesNotContainKey("node-a");

        fixture.send(DispatchFixture.dispatched("on-g0", 5, 1, "node-a-g0"));
        fixture.send(DispatchFixture.dispatched("on-g1", 5, 1, "node-a-g1"));
        fixture.send(DispatchFixture.dispatched("also-g1", 5, 1, "node-a-g1"));
        fixture.send(DispatchFixture.dispatched("placed-elsewhere", 5, 1, "node-b-g3"));

        List<String> ids = List.of("on-g0", "on-g1", "also-g1", "placed-elsewhere");
        await().atMost(Duration.ofSeconds(30)).until(() -> ids.stream().allMatch(id -> fixture.terminalsOf(id).size() == 1));
        for (String id : ids) {
            ResponseEvent terminal = fixture.terminalsOf(id).get(0);
            assertThat(terminal.getTerminal().getStatus()).as(id).isEqualTo(ResponseStatus.COMPLETED);
        }
        assertThat(ranOn("on-g0")).isEqualTo("node-a-g0");
        assertThat(ranOn("on-g1")).isEqualTo("node-a-g1");
        assertThat(ranOn("also-g1")).isEqualTo("node-a-g1");
        assertThat(ranOn("placed-elsewhere")).isIn("node-a-g0", "node-a-g1");
        assertThat(worker.slots().size()).isEqualTo(2);
    }

    @Test
    void shouldCancelARunOnTheSecondSlotAndStopItInThatSlotsEngine() throws Exception {
        fixture.send(DispatchFixture.dispatched("long-on-g1", 50_000, 1, "node-a-g1"));
        InferenceEngine g1 = worker.slots().slotFor("node-a-g1").engine();
        await().atMost(Duration.ofSeconds(30)).until(() -> fixture.eventsOf("long-on-g1").size() >= 2);
        assertThat(g1.snapshot().runningRequests()).as("it runs on g1").isEqualTo(1);

        fixture.cancel("long-on-g1", System.currentTimeMillis());

        await().atMost(Duration.ofSeconds(20)).until(() -> fixture.terminalsOf("long-on-g1").size() == 1);
        ResponseEvent terminal = fixture.terminalsOf("long-on-g1").get(0);
        assertThat(terminal.getTerminal().getStatus()).isEqualTo(ResponseStatus.CANCELLED);
        assertThat(terminal.getTerminal().getWorkerId()).isEqualTo("node-a-g1");
        await().atMost(Duration.ofSeconds(5)).until(() -> g1.snapshot().runningRequests() == 0 && g1.snapshot().waitingRequests() == 0);
    }

    @Test
    void shouldStopAVoidedRunOnTheSecondSlotAndRunTheNewerAttemptOnTheSlotItNames() throws Exception {
        fixture.send(DispatchFixture.dispatched("moved-from-g1", 50_000, 1, "node-a-g1"));
        InferenceEngine g1 = worker.slots().slotFor("node-a-g1").engine();
        await().atMost(Duration.ofSeconds(30)).until(() -> fixture.eventsOf("moved-from-g1").size() >= 2);

        fixture.supersede("moved-from-g1", 2);

        await().atMost(Duration.ofSeconds(10)).until(() -> g1.snapshot().runningRequests() == 0);
        int streamed = fixture.eventsOf("moved-from-g1").size();
        fixture.send(DispatchFixture.dispatched("moved-from-g1", 5, 2, "node-a-g0"));

        await().atMost(Duration.ofSeconds(20)).until(() -> fixture.terminalsOf("moved-from-g1").size() == 1);
        ResponseEvent terminal = fixture.terminalsOf("moved-from-g1").get(0);
        assertThat(terminal.getTerminal().getStatus()).isEqualTo(ResponseStatus.COMPLETED);
        assertThat(terminal.getTerminal().getWorkerId()).as("the newer attempt runs where it was placed").isEqualTo("node-a-g0");
        assertThat(RunAttempt.dispatchAttemptOf(terminal.getAttempt())).isEqualTo(2);
        assertThat(fixture.eventsOf("moved-from-g1").subList(0, streamed)).allSatisfy(e -> {
            assertThat(e.getTerminal()).as("the voided run on g1 wrote no result").isNull();
            assertThat(RunAttempt.dispatchAttemptOf(e.getAttempt())).isEqualTo(1);
        });
    }

    private String ranOn(String requestId) {
        return fixture.terminalsOf(requestId).get(0).getTerminal().getWorkerId();
    }

    /** The latest telemetry of each worker id that says it owns dispatch partition 0. */
    private Map<String, WorkerTelemetry> slotsOwningPartitionZero() {
        return fixture.telemetry().poll().stream()
                .filter(t -> t.getOwnedPartitions().contains(0))
                .collect(Collectors.toMap(WorkerTelemetry::getWorkerId, t -> t, (a, b) -> b));
    }
}
