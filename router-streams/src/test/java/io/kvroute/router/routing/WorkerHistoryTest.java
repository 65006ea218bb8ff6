package io.kvroute.router.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class WorkerHistoryTest {
    private final WorkerHistory history = new WorkerHistory(1_000, 100, 10_000);

    @Test
    void shouldReadASteadyStreamOfPlacementsAsItsRate() {
        for (int i = 0; i < 100; i++) {
            history.placed(i * 100L, i * 100L, 0, 1_000);
        }
        // ten a second
        assertThat(history.arrivalsPerMs(9_900)).isCloseTo(0.01, within(0.001));
        assertThat(new WorkerHistory(1_000, 100, 10_000).arrivalsPerMs(9_900)).isZero();
    }

    @Test
    void shouldForgetPlacementsExponentially() {
        history.placed(5_000, 5_000, 0, 1_000);

        assertThat(history.arrivalsPerMs(5_000)).isEqualTo(0.001);
        assertThat(history.arrivalsPerMs(6_000)).isCloseTo(0.001 / Math.E, within(1e-9));
    }

    @Test
    void shouldAverageTheContextOfRecentPlacements() {
        assertThat(history.contextTokens()).isZero();
        history.placed(0, 0, 0, 8_000);
        assertThat(history.contextTokens()).isEqualTo(8_000);
        for (int i = 1; i <= 200; i++) {
            history.placed(i, i, 0, 2_000);
        }
        assertThat(history.contextTokens()).isCloseTo(2_000, within(1.0));
    }

    @Test
    void shouldDrainWorkPlacedSinceTelemetryFromWhenItArrives() {
        history.placed(1_000, 1_010, 200, 1_000);

        assertThat(history.backlogMs(900, 0, 1_000, 1_010)).isEqualTo(200);
        assertThat(history.backlogMs(900, 0, 1_100, 1_110)).isEqualTo(100);
        assertThat(history.backlogMs(900, 0, 1_300, 1_310)).isZero();
    }

    @Test
    void shouldQueueWorkBehindTheReportedQueueAndEarlierPlacements() {
        history.placed(1_000, 1_000, 50, 1_000);
        history.placed(1_020, 1_020, 50, 1_000);

        // 100 ms reported at 1,000: the placements queue behind it
        assertThat(history.backlogMs(1_000, 100, 1_020, 1_020)).isEqualTo(180);
        assertThat(history.backlogMs(1_000, 100, 1_020, 1_120)).isEqualTo(80);
    }

    @Test
    void shouldDropWorkTheWorkerHadSeenWhenItsSnapshotWasTaken() {
        history.placed(1_000, 1_000, 200, 1_000);

        // a snapshot taken 150 ms after the placement (more than the grace) already counts it
        assertThat(history.backlogMs(1_150, 30, 1_160, 1_160)).isEqualTo(20);
        assertThat(history.backlogMs(900, 0, 1_160, 1_160)).as("dropped for good").isZero();
    }

    @Test
    void shouldKeepCountingTheRoutersOwnPlacementsWhateverTelemetrySays() {
        history.placed(1_000, 1_000, 200, 1_000);
        history.placed(1_050, 1_050, 100, 1_000);

        assertThat(history.backlogMs(1_151, 0, 1_160, 1_160)).isZero();
        assertThat(history.ownBacklogMs(1_160)).isEqualTo(140);
        assertThat(history.ownBacklogMs(1_400)).isZero();
    }

    /**
     * The ring against the two deques of placement objects it replaced (kept below as the model): placements, reads of
     * old and new snapshots, a clock that mostly moves on and sometimes steps back, enough placements at once to grow
     * and wrap the ring.
     */
    @Test
    void shouldFoldExactlyAsTwoDequesOfPlacementsWould() {
        SplittableRandom random = new SplittableRandom(11);
        DequeModel model = new DequeModel(100, 10_000);
        long now = 1_000;
        long observedAt = 900;
        int mostHeld = 0;
        for (int step = 0; step < 50_000; step++) {
            now += random.nextInt(10) == 0 ? -random.nextInt(50) : random.nextInt(20);
            int what = random.nextInt(10);
            if (what < 5) {
                long arrives = now + random.nextInt(30);
                double work = random.nextInt(8) == 0 ? 0 : random.nextDouble() * 40;
                history.placed(now, arrives, work, 1_000);
                model.placed(now, arrives, work);
                mostHeld = Math.max(mostHeld, model.sinceTelemetry.size());
                continue;
            }
            if (what == 9) {
                observedAt = now - random.nextInt(20_000) / (random.nextInt(100) + 1);
            }
            double reported = random.nextDouble() * 100;
            long at = now + random.nextInt(30);
            assertThat(history.backlogMs(observedAt, reported, now, at)).as("step %d", step)
                    .isEqualTo(model.backlogMs(observedAt, reported, now, at));
        }
        assertThat(mostHeld).as("the ring grew past its first size").isGreaterThan(16);
    }

    /** The deque version of {@link WorkerHistory#backlogMs}, as it was before the ring. */
    private static final class DequeModel {
        private final long graceMs;
        private final long maxAgeMs;
        private final Deque<long[]> sinceTelemetry = new ArrayDeque<>();
        private final Deque<long[]> unfolded = new ArrayDeque<>();
        private long foldObservedAtMs = Long.MIN_VALUE;
        private double foldQueueMs;
        private long foldAtMs;

        DequeModel(long graceMs, long maxAgeMs) {
            this.graceMs = graceMs;
            this.maxAgeMs = maxAgeMs;
        }

        void placed(long placedAtMs, long arrivesAtMs, double workMs) {
            if (workMs > 0) {
                long[] placed = {placedAtMs, arrivesAtMs, Double.doubleToRawLongBits(workMs)};
                sinceTelemetry.addLast(placed);
                unfolded.addLast(placed);
            }
        }

        double backlogMs(long observedAtMs, double reportedMs, long nowMs, long atMs) {
            long ageCutoff = nowMs - maxAgeMs;
            long cutoff = observedAtMs != foldObservedAtMs ? Math.max(observedAtMs - graceMs, ageCutoff) : ageCutoff;
            while (!sinceTelemetry.isEmpty() && sinceTelemetry.peekFirst()[0] < cutoff) {
                sinceTelemetry.removeFirst();
            }
            if (observedAtMs != foldObservedAtMs) {
                unfolded.clear();
                unfolded.addAll(sinceTelemetry);
                foldObservedAtMs = observedAtMs;
                foldQueueMs = reportedMs;
                foldAtMs = observedAtMs;
            }
            while (!unfolded.isEmpty()) {
                long[] p = unfolded.removeFirst();
                long arrives = Math.max(foldAtMs, p[1]);
                foldQueueMs = Math.max(0, foldQueueMs - (arrives - foldAtMs)) + Double.longBitsToDouble(p[2]);
                foldAtMs = arrives;
            }
            return atMs > foldAtMs ? Math.max(0, foldQueueMs - (atMs - foldAtMs)) : foldQueueMs;
        }
    }

    @Test
    void shouldRefuseBoundsThatMakeNoSense() {
        assertThatThrownBy(() -> new WorkerHistory(0, 100, 10_000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new WorkerHistory(1_000, -1, 10_000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new WorkerHistory(1_000, 100, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
