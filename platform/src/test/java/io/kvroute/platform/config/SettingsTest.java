package io.kvroute.platform.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsTest {
    /** Stands in for a config class: its String constants are its keys. */
    static final class Keys {
        public static final String POLICY = "demo.policy";
        public static final String PORT = "demo.port";
    }

    @Test
    void shouldLayerDefaultsFileEnvironmentAndOverrides(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("demo.properties");
        Files.writeString(file, "demo.policy=from-file\ndemo.port=1\n");
        Settings settings = Settings.builder()
                .defaults(Map.of("demo.policy", "default", "demo.port", "0", "demo.other", "x"))
                .file(file)
                .environment(Map.of("KVROUTE_DEMO_PORT", "2", "PATH", "/bin"), "demo.")
                .overrides(Map.of("demo.policy", "from-cli"))
                .build();
        assertThat(settings.string("demo.policy")).isEqualTo("from-cli");
        assertThat(settings.intValue("demo.port", 0, 10)).isEqualTo(2);
        assertThat(settings.string("demo.other")).isEqualTo("x");
    }

    @Test
    void shouldNameTheKeyAndValueOfABadSetting() {
        Settings settings = Settings.of(Map.of("demo.port", "eighty", "demo.ratio", "1.5"));
        assertThatThrownBy(() -> settings.intValue("demo.port", 0, 65_535))
                .isInstanceOf(ConfigException.class).hasMessageContaining("demo.port").hasMessageContaining("eighty");
        assertThatThrownBy(() -> settings.doubleValue("demo.ratio", 0, 1))
                .hasMessageContaining("demo.ratio").hasMessageContaining("1.5").hasMessageContaining("between");
        assertThatThrownBy(() -> settings.string("demo.missing")).hasMessageContaining("demo.missing").hasMessageContaining("required");
    }

    @Test
    void shouldRefuseAMisspeltKeyUnderAnOwnedPrefix() {
        Settings.of(Map.of("demo.policy", "a", "other.thing", "b")).requireKnownKeys("demo.", Keys.class);
        assertThatThrownBy(() -> Settings.of(Map.of("demo.polcy", "a")).requireKnownKeys("demo.", Keys.class))
                .isInstanceOf(ConfigException.class).hasMessageContaining("demo.polcy").hasMessageContaining("demo.policy");
    }
}
