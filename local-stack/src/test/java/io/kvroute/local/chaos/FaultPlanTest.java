package io.kvroute.local.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class FaultPlanTest {
    private final Map<FaultKind, Integer> counts = Map.of(FaultKind.KILL_WORKER, 10, FaultKind.KILL_ROUTER, 2,
            FaultKind.RESTART_BROKER, 1);

    @Test
    void shouldPlanEachKindItsCountInsideTheWindowInTimeOrder() {
        FaultPlan plan = FaultPlan.generate(counts, 1_000, 9_000, 7);

        assertThat(plan.countsByKind()).containsEntry(FaultKind.KILL_WORKER, 10).containsEntry(FaultKind.KILL_ROUTER, 2)
                .containsEntry(FaultKind.RESTART_BROKER, 1).containsEntry(FaultKind.HANG_WORKER, 0);
        assertThat(plan.faults()).allSatisfy(f -> assertThat(f.atMs()).isBetween(1_000L, 9_000L));
        assertThat(plan.faults()).isSortedAccordingTo((a, b) -> Long.compare(a.atMs(), b.atMs()));
    }

    @Test
    void shouldGiveTheSameScheduleForTheSameSeedAndAnotherForAnother() {
        assertThat(FaultPlan.generate(counts, 0, 60_000, 3).faults()).isEqualTo(FaultPlan.generate(counts, 0, 60_000, 3).faults());
        assertThat(FaultPlan.generate(counts, 0, 60_000, 3).faults()).isNotEqualTo(FaultPlan.generate(counts, 0, 60_000, 4).faults());
    }

    @Test
    void shouldRefuseANegativeCountOrAnInvertedWindow() {
        assertThatThrownBy(() -> FaultPlan.generate(Map.of(FaultKind.KILL_WORKER, -1), 0, 10, 1))
                .hasMessageContaining("kill_worker").hasMessageContaining("-1");
        assertThatThrownBy(() -> FaultPlan.generate(counts, 10, 5, 1)).hasMessageContaining("10..5");
    }
}
