package io.kvroute.worker.consumer.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.worker.engine.EngineFailure.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class RetryBackoffTest {
    private static final long NOW = 1_000_000;
    private final RetryBackoff backoff = new RetryBackoff(3, 500);

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"UNAVAILABLE", "SERVER_ERROR", "STREAM_BROKEN", "TIMEOUT", "ENGINE"})
    void shouldRetryATransientFailureAfterTheBackoff(Kind kind) {
        assertThat(backoff.nextTryDueMs(0, kind, NOW, null)).hasValue(NOW + 500);
    }

    @Test
    void shouldNotRetryARateLimit() {
        assertThat(backoff.nextTryDueMs(0, Kind.RATE_LIMITED, NOW, null)).isEmpty();
    }

    @Test
    void shouldNotRetryARejection() {
        assertThat(backoff.nextTryDueMs(0, Kind.REJECTED, NOW, null)).isEmpty();
    }

    @Test
    void shouldDoubleTheBackoffWithEachRetryUpToTheMaximum() {
        assertThat(backoff.nextTryDueMs(0, Kind.SERVER_ERROR, NOW, null)).hasValue(NOW + 500);
        assertThat(backoff.nextTryDueMs(1, Kind.SERVER_ERROR, NOW, null)).hasValue(NOW + 1_000);
        assertThat(backoff.nextTryDueMs(2, Kind.SERVER_ERROR, NOW, null)).hasValue(NOW + 2_000);
        assertThat(backoff.nextTryDueMs(3, Kind.SERVER_ERROR, NOW, null)).as("three retries made").isEmpty();
    }

    @Test
    void shouldNeverRetryWhenTheMaximumIsZero() {
        assertThat(new RetryBackoff(0, 500).nextTryDueMs(0, Kind.TIMEOUT, NOW, null)).isEmpty();
    }

    @Test
    void shouldNotRetryWhenTheRetryWouldBeDueAtOrAfterTheDeadline() {
        assertThat(backoff.nextTryDueMs(1, Kind.TIMEOUT, NOW, NOW + 1_001)).hasValue(NOW + 1_000);
        assertThat(backoff.nextTryDueMs(1, Kind.TIMEOUT, NOW, NOW + 1_000)).isEmpty();
        assertThat(backoff.nextTryDueMs(1, Kind.TIMEOUT, NOW, NOW + 999)).isEmpty();
    }

    @Test
    void shouldStopDoublingAfterTheCap() {
        RetryBackoff many = new RetryBackoff(100, 1);
        long capped = 1L << RetryBackoff.MAX_DOUBLINGS;

        assertThat(many.nextTryDueMs(RetryBackoff.MAX_DOUBLINGS - 1, Kind.ENGINE, NOW, null)).hasValue(NOW + capped / 2);
        assertThat(many.nextTryDueMs(RetryBackoff.MAX_DOUBLINGS, Kind.ENGINE, NOW, null)).hasValue(NOW + capped);
        assertThat(many.nextTryDueMs(RetryBackoff.MAX_DOUBLINGS + 1, Kind.ENGINE, NOW, null)).hasValue(NOW + capped);
        assertThat(many.nextTryDueMs(70, Kind.ENGINE, NOW, null)).as("no shift past 63 bits").hasValue(NOW + capped);
    }

    @Test
    void shouldRefuseANegativeMaximumOrABackoffBelowOneMillisecond() {
        assertThatThrownBy(() -> new RetryBackoff(-1, 500))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxRetries must not be negative, was -1");
        assertThatThrownBy(() -> new RetryBackoff(2, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("backoffMs must be at least 1, was 0");
    }
}
