package io.kvroute.platform.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingDefsTest {
    private static final SettingDefs DEFS = SettingDefs.builder()
            .string("demo.url", null, "an http:// URL", "Where to connect.")
            .intRange("demo.port", -1, 65_535, -1, "Port; -1 turns it off.")
            .doubleRange("demo.ratio", 0.01, 1.0, 0.95, "A share.")
            .oneOf("demo.mode", List.of("fast", "slow"), "fast", "How to run.")
            .stringWorkedOut("demo.dir", "a temporary directory", "a directory", "Where to keep state.")
            .build();

    @Test
    void shouldLayerOnlyTheDefaultsItHas() {
        assertThat(DEFS.defaults()).containsExactly(Map.entry("demo.port", "-1"), Map.entry("demo.ratio", "0.95"),
                Map.entry("demo.mode", "fast"));
    }

    @Test
    void shouldEnforceTheDefinedRangeWithTheSameMessageAsSettings() {
        Settings s = Settings.of(Map.of("demo.port", "70000", "demo.ratio", "2", "demo.mode", "medium"));
        assertThatThrownBy(() -> DEFS.intValue(s, "demo.port")).isInstanceOf(ConfigException.class)
                .hasMessage("invalid configuration demo.port = '70000': must be between -1 and 65535");
        assertThatThrownBy(() -> DEFS.doubleValue(s, "demo.ratio")).hasMessageContaining("demo.ratio").hasMessageContaining("'2'");
        assertThatThrownBy(() -> DEFS.oneOf(s, "demo.mode")).hasMessage("invalid configuration demo.mode = 'medium': must be one of [fast, slow]");
    }

    @Test
    void shouldRenderOneRowPerSetting() {
        assertThat(DEFS.markdownTable()).contains(
                "| `demo.url` | string | an http:// URL | (required) | Where to connect. |",
                "| `demo.port` | int | [-1, 65535] | `-1` | Port; -1 turns it off. |",
                "| `demo.ratio` | double | [0.01, 1] | `0.95` | A share. |",
                "| `demo.mode` | string | fast, slow | `fast` | How to run. |",
                "| `demo.dir` | string | a directory | a temporary directory | Where to keep state. |");
    }

    @Test
    void shouldRefuseASettingWithoutADescription() {
        assertThatThrownBy(() -> SettingDefs.builder().intRange("demo.n", 0, 1, 0, " ")).isInstanceOf(IllegalArgumentException.class);
    }
}
