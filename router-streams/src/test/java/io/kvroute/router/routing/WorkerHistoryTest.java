package io.kvroute.router.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

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

    @Test
    void shouldRefuseBoundsThatMakeNoSense() {
        assertThatThrownBy(() -> new WorkerHistory(0, 100, 10_000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new WorkerHistory(1_000, -1, 10_000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new WorkerHistory(1_000, 100, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
