package io.kvroute.router.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
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
    void shouldCountAgainFromNothingAfterABurstWasAllPruned() {
        for (int i = 0; i < 100; i++) {
            ledger.add("w-a", i % 3, 10, 1, 1_000 + i);
        }
        assertThat(ledger.pending("w-a", 900, 1_200)).isEqualTo(new PendingLoad(100, 1_000, 100));
        assertThat(ledger.pending("w-a", 2_000, 2_000)).isEqualTo(PendingLoad.NONE);

        ledger.add("w-a", 2, 7, 3, 2_100);
        ledger.add("w-a", 1, 5, 2, 2_101);
        assertThat(ledger.pending("w-a", 2_000, 2_150)).isEqualTo(new PendingLoad(2, 12, 5));
        assertThat(ledger.pendingOnPartition("w-a", 2, 2_000, 2_150)).isEqualTo(1);
        assertThat(ledger.pendingOnPartition("w-a", 0, 2_000, 2_150)).isZero();
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

    /**
     * The ledger against a plain list of every placement: placements and reads interleave at random
     * on three workers, the clock moves forward, telemetry of random age arrives, and some
     * placements have no partition.
     */
    @Test
    void shouldAgreeWithEveryPlacementListedThroughGrowthAndWrapAround() {
        SplittableRandom random = new SplittableRandom(7);
        List<long[]> placed = new ArrayList<>();
        long now = 1_000;
        long mostPending = 0;
        for (int step = 0; step < 20_000; step++) {
            now += random.nextInt(3);
            String worker = "w-" + random.nextInt(3);
            if (random.nextInt(3) > 0) {
                int partition = random.nextInt(10) == 0 ? -1 : random.nextInt(6);
                long prefill = random.nextInt(2_000);
                long kv = random.nextInt(100);
                ledger.add(worker, partition, prefill, kv, now);
                placed.add(new long[] {worker.charAt(2), partition, prefill, kv, now});
                continue;
            }
            long observedAt = now - random.nextInt(400);
            long cutoff = Math.max(observedAt - 100, now - 10_000);
            // the ledger forgets what one read prunes, so the model does too
            placed.removeIf(p -> p[0] == worker.charAt(2) && p[4] < cutoff);
            int partition = random.nextInt(6);
            long requests = 0;
            long prefill = 0;
            long kv = 0;
            long onPartition = 0;
            for (long[] p : placed) {
                if (p[0] == worker.charAt(2)) {
                    requests++;
                    prefill += p[2];
                    kv += p[3];
                    onPartition += p[1] == partition ? 1 : 0;
                }
            }
            assertThat(ledger.pending(worker, observedAt, now)).isEqualTo(new PendingLoad((int) requests, prefill, kv));
            assertThat(ledger.pendingOnPartition(worker, partition, observedAt, now)).isEqualTo(onPartition);
            mostPending = Math.max(mostPending, requests);
        }
        // many placements were pending on one worker at once, not only a few
        assertThat(mostPending).isGreaterThan(64);
    }

    @Test
    void shouldRefuseNonsensicalBounds() {
        assertThatThrownBy(() -> new PendingLoadLedger(-1, 10)).isInstanceOf(IllegalArgumentException.class);
    }
}
