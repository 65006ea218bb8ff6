package io.kvroute.router.topology.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CommitPacingTest {
    private final CommitPacing pacing = new CommitPacing(50, 500);

    @Test
    void shouldAskEveryCaughtUpIntervalWhileRequestsArriveFresh() {
        assertThat(pacing.shouldAsk(1_000, 950, 10)).isTrue();
        assertThat(pacing.shouldAsk(1_000, 960, 10)).as("asked 40 ms ago").isFalse();
        assertThat(pacing.shouldAsk(1_000, 950, -30)).as("a writer's clock ahead is not a backlog").isTrue();
    }

    @Test
    void shouldLeaveCommitsToStreamsWhileBehindOrWhenOff() {
        assertThat(pacing.shouldAsk(10_000, 0, 500)).as("waited the backlog threshold").isFalse();
        assertThat(pacing.shouldAsk(10_000, 0, 7_000)).isFalse();
        assertThat(CommitPacing.NONE.shouldAsk(10_000, 0, 0)).isFalse();
        assertThatThrownBy(() -> new CommitPacing(-1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
