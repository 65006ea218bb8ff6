package io.kvroute.worker.engine.openai.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PrometheusTextTest {

    @Test
    void shouldParseNamesLabelsValuesAndTimestamps() {
        PrometheusText page = PrometheusText.parse("""
                # HELP x_total A counter.
                # TYPE x_total counter
                x_total{a="1",b="with \\"quotes\\", a \\\\ and\\nnewline"} 3.5e+02 1748563200000
                up 1
                nan_metric NaN
                inf_metric{le="+Inf"} +Inf
                empty_labels{} -2

                """);

        assertThat(page.samples("x_total")).singleElement().satisfies(s -> {
            assertThat(s.value()).isEqualTo(350.0);
            assertThat(s.labels()).isEqualTo(Map.of("a", "1", "b", "with \"quotes\", a \\ and\nnewline"));
        });
        assertThat(page.sum("up")).hasValue(1.0);
        assertThat(page.samples("nan_metric").get(0).value()).isNaN();
        assertThat(page.sum("inf_metric")).hasValue(Double.POSITIVE_INFINITY);
        assertThat(page.sum("empty_labels")).hasValue(-2.0);
        assertThat(page.sum("absent")).isEmpty();
    }

    @Test
    void shouldSumAndAverageAcrossLabelSets() {
        PrometheusText page = PrometheusText.parse("""
                vllm:num_requests_running{engine="0",model_name="m"} 3.0
                vllm:num_requests_running{engine="1",model_name="m"} 4.0
                vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.2
                vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.6
                """);

        assertThat(page.sum("vllm:num_requests_running")).hasValue(7.0);
        assertThat(page.mean("vllm:kv_cache_usage_perc").getAsDouble()).isCloseTo(0.4, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void shouldRejectLinesOutsideTheFormatNamingTheLine() {
        assertThatThrownBy(() -> PrometheusText.parse("ok 1\nbroken{a=\"1\" 2\n")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 2");
        assertThatThrownBy(() -> PrometheusText.parse("m 1 2 3")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PrometheusText.parse("m one")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PrometheusText.parse("m{a=\"x\\q\"} 1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PrometheusText.parse("<html>")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PrometheusText.parse("9lives 1")).isInstanceOf(IllegalArgumentException.class);
    }
}
