package io.kvroute.schemas.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RunAttemptTest {

    @Test
    void shouldOutrankARunOfAnEarlierGenerationOfTheSameDispatch() {
        assertThat(RunAttempt.of(1, 8)).isGreaterThan(RunAttempt.of(1, 7));
    }

    @Test
    void shouldOutrankEveryRunOfAnEarlierDispatchAttempt() {
        assertThat(RunAttempt.of(2, 0)).isGreaterThan(RunAttempt.of(1, 65_535));
    }

    @Test
    void shouldOutrankTheRoutersOwnTerminalsWhichUseAttemptOne() {
        assertThat(RunAttempt.of(1, 0)).isGreaterThan(1);
    }

    @Test
    void shouldRefuseAnAttemptThatCannotBeEncoded() {
        assertThatThrownBy(() -> RunAttempt.of(0, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RunAttempt.of(1 << 15, 3)).isInstanceOf(IllegalArgumentException.class);
    }
}
