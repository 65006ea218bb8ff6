package io.kvroute.router;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.streams.KafkaStreams.State;
import org.junit.jupiter.api.Test;

class RouterHealthTest {

    @Test
    void shouldBeReadyOnlyWhileRunning() {
        assertThat(RouterHealth.ready(State.RUNNING).up()).isTrue();
        for (State state : new State[] {State.CREATED, State.REBALANCING, State.PENDING_SHUTDOWN, State.NOT_RUNNING,
                State.PENDING_ERROR, State.ERROR}) {
            assertThat(RouterHealth.ready(state).up()).as("%s", state).isFalse();
            assertThat(RouterHealth.ready(state).detail()).contains(state.name());
        }
    }

    @Test
    void shouldBeLiveWhileStartingRebalancingOrRunningButNotOnceFailedOrStopped() {
        assertThat(RouterHealth.live(State.CREATED).up()).isTrue();
        assertThat(RouterHealth.live(State.REBALANCING).up()).isTrue();
        assertThat(RouterHealth.live(State.RUNNING).up()).isTrue();
        assertThat(RouterHealth.live(State.ERROR).up()).isFalse();
        assertThat(RouterHealth.live(State.PENDING_ERROR).up()).isFalse();
        assertThat(RouterHealth.live(State.NOT_RUNNING).up()).isFalse();
        assertThat(RouterHealth.live(State.ERROR).detail()).isEqualTo("streams ERROR");
    }
}
