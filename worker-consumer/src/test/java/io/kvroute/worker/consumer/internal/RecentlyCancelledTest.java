package io.kvroute.worker.consumer.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RecentlyCancelledTest {

    @Test
    void shouldForgetTheOldestIdsBeyondItsCapacity() {
        RecentlyCancelled cancelled = new RecentlyCancelled(3);
        cancelled.add("a");
        cancelled.add("b");
        cancelled.add("c");
        cancelled.add("a");
        cancelled.add("d");

        assertThat(cancelled.size()).isEqualTo(3);
        assertThat(cancelled.contains("b")).as("the oldest, as a repeated cancel counts as recent").isFalse();
        assertThat(cancelled.contains("a")).isTrue();
        assertThat(cancelled.contains("c")).isTrue();
        assertThat(cancelled.contains("d")).isTrue();
    }

    @Test
    void shouldRefuseANonPositiveCapacity() {
        assertThatThrownBy(() -> new RecentlyCancelled(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0");
    }
}
