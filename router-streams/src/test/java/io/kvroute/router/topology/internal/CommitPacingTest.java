package io.kvroute.router.topology.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
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
    void shouldAskLessOftenTheLongerRequestsWaited() {
        assertThat(pacing.shouldAsk(1_000, 900, 300)).as("a request waited 300 ms: every 150 ms").isFalse();
        assertThat(pacing.shouldAsk(1_000, 850, 300)).isTrue();
        assertThat(pacing.shouldAsk(1_000, 950, 60)).as("under twice the interval: the interval").isTrue();
    }

    @Test
    void shouldLeaveCommitsToStreamsWhileBehindOrWhenOff() {
        assertThat(pacing.shouldAsk(10_000, 0, 500)).as("waited the backlog threshold").isFalse();
        assertThat(pacing.shouldAsk(10_000, 0, 7_000)).isFalse();
        assertThat(CommitPacing.NONE.askNow(10_000, 0)).isFalse();
        assertThat(CommitPacing.NONE.paces()).isFalse();
        assertThatThrownBy(() -> new CommitPacing(-1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldAskOncePerIntervalForAllTheTasksOfOneThread() {
        // four tasks of one stream thread, each routing a request in turn: their thread commits them together
        int asks = 0;
        for (long now = 1_000; now < 2_000; now += 5) {
            asks += pacing.askNow(now, 10) ? 1 : 0;
        }
        assertThat(asks).as("one ask per 50 ms over a second, whichever task routed").isEqualTo(20);
    }

    @Test
    void shouldKeepEachStreamThreadsAsksApart() throws Exception {
        assertThat(pacing.askNow(1_000, 10)).isTrue();
        assertThat(pacing.askNow(1_010, 10)).as("this thread asked 10 ms ago").isFalse();
        assertThat(CompletableFuture.supplyAsync(() -> pacing.askNow(1_010, 10)).get())
                .as("another thread commits its own transaction").isTrue();
    }
}
