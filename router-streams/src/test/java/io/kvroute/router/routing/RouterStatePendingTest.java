package io.kvroute.router.routing;

import static io.kvroute.router.routing.Fleet.NOW;
import static io.kvroute.router.routing.Fleet.worker;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link RouterState#pending} remembers a decision's reads, and never past a change of the answer. */
class RouterStatePendingTest {
    private final RouterState state = new RouterState(Fleet.settings());

    @Test
    void shouldSeeAPlacementRecordedInTheSameMillisecond() {
        WorkerSnapshot snapshot = worker("pending-a").build();
        assertThat(state.pending(snapshot, NOW).requests()).isZero();

        state.ledger().add("pending-a", 0, 500, 8, NOW);

        assertThat(state.pending(snapshot, NOW).requests()).isEqualTo(1);
        assertThat(state.pending(snapshot, NOW).prefillTokens()).isEqualTo(500);
    }

    @Test
    void shouldForgetExpiredLoadWhenTheClockMoves() {
        WorkerSnapshot snapshot = worker("pending-b").build();
        state.ledger().add("pending-b", 0, 500, 8, NOW);
        assertThat(state.pending(snapshot, NOW).requests()).isEqualTo(1);

        long later = NOW + Fleet.settings().ledgerMaxAgeMs() + 1;

        assertThat(state.pending(snapshot, later).requests()).isZero();
    }

    @Test
    void shouldStayCorrectAfterADecisionThatReadAWholeLargeFleet() {
        List<WorkerSnapshot> fleet = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            fleet.add(worker("pending-fleet-" + i).build());
            state.pending(fleet.get(i), NOW);
        }

        state.ledger().add("pending-fleet-7", 1, 100, 2, NOW);

        assertThat(state.pending(fleet.get(7), NOW).requests()).isEqualTo(1);
        assertThat(state.pending(fleet.get(8), NOW).requests()).isZero();
    }
}
