package io.kvroute.local.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LoadtestSeriesTest {

    /** A run that routed {@code routed} records over 10 s and copied {@code copied} over 10 s, with CPU for both. */
    private static LoadtestReport run(long routed, long copied, double routerCpuSeconds) {
        LoadtestReport.Phase route = new LoadtestReport.Phase(routed, (int) routed, new Span(routed, 0, 10_000), 0,
                Map.of(LoadtestReport.ROUTER, routerCpuSeconds, LoadtestReport.BROKER, 1.0, LoadtestReport.LOADTEST, 0.5), 0);
        LoadtestReport.Phase copy = new LoadtestReport.Phase(copied, (int) copied, new Span(copied, 0, 10_000), 0,
                Map.of(LoadtestReport.COPY, 0.5, LoadtestReport.BROKER, 0.5), 0);
        return new LoadtestReport(Map.of("summary", "test"), copy, route, Span.EMPTY, Map.of(), List.of(), null, Map.of(), List.of());
    }

    @Test
    void shouldTakeTheMedianOfEachFigureOverTheRuns() {
        LoadtestSeries series = new LoadtestSeries(List.of(run(40_001, 100_001, 4.0), run(60_001, 100_001, 3.0),
                run(50_001, 50_001, 6.0)));

        assertThat(series.median("routed/s")).isEqualTo(5_000.0);
        assertThat(series.median("copy rec/s")).isEqualTo(10_000.0);
        // ratios 0.4, 0.6 and 1.0: the median run's, not the medians' ratio
        assertThat(series.median("ratio")).isEqualTo(0.6);
        assertThat(series.median("router µs/req")).as("4 s / 40,000, 3 s / 60,000, 6 s / 50,000").isEqualTo(100.0);
        assertThat(series.median("loadtest µs/req")).as("0.5 s / 40,000, / 60,000, / 50,000").isEqualTo(10.0);
        assertThat(series.median("p99 ms")).as("no run measured latency").isEqualTo(-1.0);
    }

    @Test
    void shouldTakeTheLowerMiddleOfAnEvenCount() {
        LoadtestSeries series = new LoadtestSeries(List.of(run(40_001, 100_001, 4.0), run(60_001, 100_001, 3.0)));
        assertThat(series.median("routed/s")).isEqualTo(4_000.0);
    }

    @Test
    void shouldPrintARowPerRunAndTheMediansLeavingOutWhatNoRunMeasured() {
        LoadtestSeries series = new LoadtestSeries(List.of(run(40_001, 100_001, 4.0), run(60_001, 100_001, 3.0),
                run(50_001, 50_001, 6.0)));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        series.printSummary(new PrintStream(bytes, true, StandardCharsets.UTF_8));

        String table = bytes.toString(StandardCharsets.UTF_8);
        assertThat(table).contains("3 runs").contains("ratio").doesNotContain("p99 ms");
        assertThat(table.lines().filter(l -> l.startsWith("median")).findFirst().orElseThrow()).contains("5,000").contains("0.60");
        assertThat(series.toMap()).containsKeys("median", "runs");
    }

    @Test
    void shouldRefuseAnEmptySeriesAndAnUnknownFigure() {
        assertThatThrownBy(() -> new LoadtestSeries(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LoadtestSeries(List.of(run(2, 2, 1.0))).median("speed"))
                .hasMessageContaining("speed");
    }
}
