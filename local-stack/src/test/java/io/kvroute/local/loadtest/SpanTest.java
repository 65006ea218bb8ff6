package io.kvroute.local.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.kvroute.local.demo.Percentiles;
import org.junit.jupiter.api.Test;

class SpanTest {
    @Test
    void shouldCountTheRecordsAfterTheFirstOverTheTimeFromFirstToLast() {
        Span span = Span.EMPTY;
        for (int i = 0; i <= 1000; i++) {
            span = span.plus(10_000 + i * 2L);
        }
        // 1001 records seen over 2 s: 1000 after the first, so 500/s
        assertThat(span.count()).isEqualTo(1001);
        assertThat(span.durationMs()).isEqualTo(2000);
        assertThat(span.perSecond()).isCloseTo(500.0, within(1e-9));
    }

    @Test
    void shouldTakeTheEarliestAndLatestWhateverTheOrder() {
        Span span = Span.EMPTY.plus(500).plus(100).plus(300);
        assertThat(span.firstMs()).isEqualTo(100);
        assertThat(span.lastMs()).isEqualTo(500);
        assertThat(span.perSecond()).isCloseTo(5.0, within(1e-9));
    }

    @Test
    void shouldHaveNoRateWithFewerThanTwoRecordsOrNoTime() {
        assertThat(Span.EMPTY.perSecond()).isZero();
        assertThat(Span.EMPTY.plus(7).perSecond()).isZero();
        assertThat(Span.EMPTY.plus(7).plus(7).perSecond()).isZero();
    }

    @Test
    void shouldGiveNearestRankPercentiles() {
        long[] latencies = new long[100];
        for (int i = 0; i < 100; i++) {
            latencies[i] = 100 - i;
        }
        LoadtestReport.Latency latency = LoadtestReport.Latency.of(200, 199.5,
                java.util.Arrays.stream(latencies).boxed().toList());
        assertThat(latency.p50Ms()).isEqualTo(50);
        assertThat(latency.p99Ms()).isEqualTo(99);
        assertThat(latency.maxMs()).isEqualTo(100);
        assertThat(new Percentiles(new long[] {5}).at(99)).isEqualTo(5);
    }

    @Test
    void shouldPutCpuMicrosPerRecordOnTheRecordsAfterTheFirst() {
        Span span = Span.EMPTY.plus(0).plus(1000).plus(2000);
        LoadtestReport.Phase phase = new LoadtestReport.Phase(3, 3, span, 0, java.util.Map.of("router", 0.5), 0);
        assertThat(phase.cpuMicrosPerRecord("router")).isCloseTo(250_000.0, within(1e-6));
        assertThat(phase.cpuMicrosPerRecord("broker")).isEqualTo(-1);
    }

    @Test
    void shouldRateTheMiddleOfTheRunWithoutItsStartAndTail() {
        long[] seen = new long[11];
        seen[0] = 0;
        for (int i = 1; i < 11; i++) {
            seen[i] = 5_000 + (i - 1) * 100L;
        }
        // the first record 5 s before the rest (start-up): the 10th..90th percentile records are 100 ms apart
        assertThat(CommittedWatch.perSecondBetween(seen, 0.1, 0.9)).isCloseTo(10.0, within(1e-9));
        assertThat(CommittedWatch.perSecondBetween(new long[] {1}, 0.1, 0.9)).isZero();
    }
}
