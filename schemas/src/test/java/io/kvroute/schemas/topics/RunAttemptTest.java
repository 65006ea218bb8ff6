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
    void shouldRankTheRoutersAnswerAboveEveryRunOfEarlierDispatchAttemptsAndBelowRunsOfItsOwn() {
        assertThat(RunAttempt.routerAnswer(2)).isGreaterThan(RunAttempt.of(1, (1 << 16) - 1));
        assertThat(RunAttempt.routerAnswer(2)).isLessThan(RunAttempt.of(2, 1));
    }

    @Test
    void shouldRefuseAnAttemptThatCannotBeEncoded() {
        assertThatThrownBy(() -> RunAttempt.of(0, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RunAttempt.of(1 << 15, 3)).isInstanceOf(IllegalArgumentException.class);
    }
}
