package io.kvroute.router.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ScoreComponentsTest {
    private static final String[] KEYS = {"ttft_ms", "queue_ms", "kv"};

    @Test
    void shouldReadLikeAnyMapInKeyOrder() {
        Map<String, Double> components = new ScoreComponents(KEYS, 120.0, 40.0, 0.5);

        assertThat(components).containsExactly(Map.entry("ttft_ms", 120.0), Map.entry("queue_ms", 40.0), Map.entry("kv", 0.5));
        assertThat(components.get("queue_ms")).isEqualTo(40.0);
        assertThat(components.get("prefill_ms")).isNull();
        assertThat(components.containsKey("kv")).isTrue();
        assertThat(components).isEqualTo(Map.of("kv", 0.5, "queue_ms", 40.0, "ttft_ms", 120.0));
        assertThat(components.hashCode()).isEqualTo(Map.of("kv", 0.5, "queue_ms", 40.0, "ttft_ms", 120.0).hashCode());
    }

    @Test
    void shouldBeImmutableAndOwnItsValues() {
        double[] values = {1.0, 2.0, 3.0};
        Map<String, Double> components = new ScoreComponents(KEYS, values);
        values[0] = 99.0;

        assertThat(components.get("ttft_ms")).isEqualTo(1.0);
        assertThatThrownBy(() -> components.put("ttft_ms", 5.0)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> components.entrySet().iterator().next().setValue(5.0)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(new ScoredCandidate("w", "us-east", 0, 1.0, components).components()).isSameAs(components);
    }

    @Test
    void shouldRefuseValuesThatDoNotMatchTheKeys() {
        assertThatThrownBy(() -> new ScoreComponents(KEYS, 1.0, 2.0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3 keys for 2 values");
    }
}
