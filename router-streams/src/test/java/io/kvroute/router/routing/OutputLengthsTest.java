package io.kvroute.router.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class OutputLengthsTest {
    private final OutputLengths lengths = new OutputLengths();

    @Test
    void shouldKnowNothingBeforeTheFirstResult() {
        assertThat(lengths.meanTokens()).isNaN();
    }

    @Test
    void shouldStartAtTheFirstAnswerAndMoveByItsSmoothingPerLaterOne() {
        lengths.completed(400);
        assertThat(lengths.meanTokens()).isEqualTo(400.0);

        lengths.completed(1_400);
        assertThat(lengths.meanTokens()).isCloseTo(400.0 + OutputLengths.SMOOTHING * 1_000, within(1e-9));
    }

    @Test
    void shouldFollowTheAnswersOfTheLastFewHundredResults() {
        lengths.completed(2_000);
        for (int i = 0; i < 1_000; i++) {
            lengths.completed(100);
        }
        assertThat(lengths.meanTokens()).isCloseTo(100.0, within(1.0));
    }

    @Test
    void shouldIgnoreAResultWithoutAnAnswer() {
        lengths.completed(0);
        assertThat(lengths.meanTokens()).isNaN();
        lengths.completed(300);
        lengths.completed(0);
        assertThat(lengths.meanTokens()).isEqualTo(300.0);
    }
}
