package io.kvroute.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.platform.config.ConfigException;
import io.kvroute.worker.config.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkerAppSettingsTest {

    @Test
    void shouldLayerDefaultsFileEnvironmentAndArguments(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("worker.properties");
        Files.writeString(file, "worker.region=eu-west\nworker.id=from-file\nworker.chunk.tokens=8\n");

        var settings = WorkerApp.settingsFrom(new String[] {"--config", file.toString(), "worker.id=from-args"},
                Map.of("KVROUTE_WORKER_CHUNK_TOKENS", "4", "KVROUTE_BOOTSTRAP_SERVERS", "b:9092", "OTHER", "x"));

        assertThat(settings.string(WorkerConfig.WORKER_ID)).isEqualTo("from-args");
        assertThat(settings.string(WorkerConfig.REGION)).isEqualTo("eu-west");
        assertThat(settings.string(WorkerConfig.CHUNK_TOKENS)).isEqualTo("4");
        assertThat(settings.string(WorkerConfig.BOOTSTRAP_SERVERS)).isEqualTo("b:9092");
        assertThat(settings.string(WorkerConfig.TELEMETRY_INTERVAL_MS)).isEqualTo("250");
    }

    @Test
    void shouldReadTheRegistryCredentialsFromTheEnvironmentAndRefuseABadOneAtStartUp(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("worker.properties");
        Files.writeString(file, "bootstrap.servers=b:9092\nschema.registry.url=https://registry:8081\nworker.region=eu-west\n"
                + "worker.id=w1\nbasic.auth.credentials.source=USER_INFO\n");

        var settings = WorkerApp.settingsFrom(new String[] {"--config", file.toString()},
                Map.of("KVROUTE_BASIC_AUTH_USER_INFO", "worker:env-pw-3"));
        var noColon = WorkerApp.settingsFrom(new String[] {"--config", file.toString()},
                Map.of("KVROUTE_BASIC_AUTH_USER_INFO", "env-pw-4"));

        assertThat(settings.string("basic.auth.user.info")).isEqualTo("worker:env-pw-3");
        assertThat(WorkerConfig.from(settings).schemaRegistryUrl()).isEqualTo("https://registry:8081");
        assertThatThrownBy(() -> WorkerConfig.from(noColon)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("basic.auth.user.info").hasMessageContaining("user:password").hasMessageNotContaining("env-pw-4");
    }

    @Test
    void shouldRefuseAnArgumentThatIsNotASetting() {
        assertThatThrownBy(() -> WorkerApp.settingsFrom(new String[] {"oops"}, Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("oops");
    }
}
