package io.kvroute.worker.consumer.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SupersededAttemptsTest {

    @Test
    void shouldVoidTheAttemptsBelowTheBoundOnly() {
        SupersededAttempts superseded = new SupersededAttempts(10);
        superseded.add("r", 3);

        assertThat(superseded.isVoid("r", 0)).isTrue();
        assertThat(superseded.isVoid("r", 2)).isTrue();
        assertThat(superseded.isVoid("r", 3)).as("the new attempt itself").isFalse();
        assertThat(superseded.isVoid("r", 4)).isFalse();
    }

    @Test
    void shouldKeepTheHigherBoundWhenALowerOneArrivesLater() {
        SupersededAttempts superseded = new SupersededAttempts(10);
        superseded.add("r", 5);
        superseded.add("r", 2);

        assertThat(superseded.isVoid("r", 4)).isTrue();
        assertThat(superseded.isVoid("r", 5)).isFalse();
    }

    @Test
    void shouldRaiseTheBoundWhenAHigherOneArrivesLater() {
        SupersededAttempts superseded = new SupersededAttempts(10);
        superseded.add("r", 2);
        superseded.add("r", 5);

        assertThat(superseded.isVoid("r", 4)).isTrue();
        assertThat(superseded.isVoid("r", 5)).isFalse();
    }

    @Test
    void shouldNotVoidAnyAttemptOfARequestNeverReplaced() {
        SupersededAttempts superseded = new SupersededAttempts(10);
        superseded.add("r", 3);

        assertThat(superseded.isVoid("other", 0)).isFalse();
    }

    @Test
    void shouldForgetTheOldestRequestsBeyondItsCapacity() {
        SupersededAttempts superseded = new SupersededAttempts(2);
        superseded.add("a", 1);
        superseded.add("b", 1);
        superseded.add("c", 1);

        assertThat(superseded.isVoid("a", 0)).as("the oldest").isFalse();
        assertThat(superseded.isVoid("b", 0)).isTrue();
        assertThat(superseded.isVoid("c", 0)).isTrue();
    }

    @Test
    void shouldCountARequestAddedAgainAsRecent() {
        SupersededAttempts superseded = new SupersededAttempts(2);
        superseded.add("a", 1);
        superseded.add("b", 1);
        superseded.add("a", 2);
        superseded.add("c", 1);

        assertThat(superseded.isVoid("b", 0)).as("now the oldest").isFalse();
        assertThat(superseded.isVoid("a", 1)).isTrue();
        assertThat(superseded.isVoid("c", 0)).isTrue();
    }

    @Test
    void shouldRefuseACapacityBelowOne() {
        assertThatThrownBy(() -> new SupersededAttempts(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("capacity must be at least 1, was 0");
        assertThatThrownBy(() -> new SupersededAttempts(-3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("capacity must be at least 1, was -3");
    }
}
