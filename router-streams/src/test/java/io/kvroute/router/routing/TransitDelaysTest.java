package io.kvroute.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TransitDelaysTest {
    private final TransitDelays delays = new TransitDelays();

    private static WorkerSnapshot seen(String region, long observedAtMs) {
        return WorkerSnapshot.builder("w-" + region, region).observedAtMs(observedAtMs).build();
    }

    @Test
    void shouldTakeTheYoungestAgeARegionsTelemetryWasSeenAt() {
        delays.observe(seen("eu-west", 1_000), 1_200);
        delays.observe(seen("eu-west", 1_250), 1_290);
        delays.observe(seen("eu-west", 1_250), 1_400);

        assertThat(delays.delayMs("eu-west")).isEqualTo(40);
        assertThat(delays.delayMs("never-seen")).isZero();
    }

    @Test
    void shouldFollowADelayThatGrowsWithinTwoWindows() {
        delays.observe(seen("eu-west", 1_000), 1_010);
        long later = 1_010 + 2 * TransitDelays.WINDOW_MS;
        delays.observe(seen("eu-west", later - 90), later);

        assertThat(delays.delayMs("eu-west")).isEqualTo(90);
    }

    @Test
    void shouldCountAWorkerClockAheadAsNoDelayAndCapALongOne() {
        delays.observe(seen("ahead", 1_050), 1_000);
        delays.observe(seen("stuck", 0), 60_000);

        assertThat(delays.delayMs("ahead")).isZero();
        assertThat(delays.delayMs("stuck")).isEqualTo(TransitDelays.MAX_DELAY_MS);
    }
}
