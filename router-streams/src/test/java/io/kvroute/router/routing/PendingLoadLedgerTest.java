package io.kvroute.router.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PendingLoadLedgerTest {
    private final PendingLoadLedger ledger = new PendingLoadLedger(100, 10_000);

    @Test
    void shouldSumLoadPlacedSinceTheLastTelemetry() {
        ledger.add("w-a", 0, 1_000, 70, 5_000);
        ledger.add("w-a", 1, 500, 40, 5_010);
        ledger.add("w-b", 0, 200, 20, 5_020);

        assertThat(ledger.pending("w-a", 4_900, 5_050)).isEqualTo(new PendingLoad(2, 1_500, 110));
        assertThat(ledger.pendingOnPartition("w-a", 1, 4_900, 5_050)).isEqualTo(1);
        assertThat(ledger.pending("w-c", 4_900, 5_050)).isEqualTo(PendingLoad.NONE);
    }

    @Test
    void shouldDropEntriesThatNewerTelemetryAlreadyShows() {
        ledger.add("w-a", 0, 1_000, 70, 5_000);
        ledger.add("w-a", 0, 500, 40, 5_200);

        // telemetry observed at 5 150 covers the placement at 5 000 (more than the 100 ms grace before it)
        assertThat(ledger.pending("w-a", 5_150, 5_300)).isEqualTo(new PendingLoad(1, 500, 40));
        // and keeps one placed within the grace window, which the worker may not have seen yet
        assertThat(ledger.pending("w-a", 5_250, 5_300)).isEqualTo(new PendingLoad(1, 500, 40));
    }

    @Test
    void shouldExpireEntriesAfterTheBoundEvenWithoutTelemetry() {
        ledger.add("w-a", 0, 1_000, 70, 5_000);
        assertThat(ledger.pending("w-a", 0, 14_999).requests()).isEqualTo(1);
        assertThat(ledger.pending("w-a", 0, 15_001)).isEqualTo(PendingLoad.NONE);
        assertThat(ledger.size()).isZero();
    }

    @Test
    void shouldRefuseNonsensicalBounds() {
        assertThatThrownBy(() -> new PendingLoadLedger(-1, 10)).isInstanceOf(IllegalArgumentException.class);
    }
}
