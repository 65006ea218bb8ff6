package io.kvroute.local.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.platform.config.SettingDefs;
import io.kvroute.router.config.RouterConfig;
import io.kvroute.worker.config.WorkerConfig;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class SettingsReferenceTest {
    /** The repository's docs directory; tests run in the module's directory. */
    static final Path DOCS = Path.of("..", "docs");

    @Test
    void shouldKeepDocsSettingsMdAsGenerated() throws Exception {
        Path file = DOCS.resolve("settings.md");
        String generated = SettingsReference.render();
        if (Boolean.getBoolean("kvroute.settings.write")) {
            Files.writeString(file, generated);
        }
        String committed = Files.exists(file) ? Files.readString(file) : "";
        assertThat(committed)
                .withFailMessage("docs/settings.md differs from the settings' definitions; regenerate it with:%n  %s",
                        SettingsReference.REGENERATE)
                .isEqualTo(generated);
    }

    @Test
    void shouldDefineEveryRouterKey() {
        assertThat(keyConstants(RouterConfig.class, "router.")).isEqualTo(definedKeys(RouterConfig.DEFINITIONS, "router."));
        assertThat(RouterConfig.DEFINITIONS.defines(RouterConfig.BOOTSTRAP_SERVERS)).isTrue();
        assertThat(RouterConfig.DEFINITIONS.defines(RouterConfig.SCHEMA_REGISTRY_URL)).isTrue();
        assertThat(RouterConfig.DEFINITIONS.defines(RouterConfig.TOPIC_PREFIX)).isTrue();
    }

    @Test
    void shouldDefineEveryWorkerKey() {
        assertThat(keyConstants(WorkerConfig.class, "worker.")).isEqualTo(definedKeys(WorkerConfig.DEFINITIONS, "worker."));
        assertThat(WorkerConfig.DEFINITIONS.defines(WorkerConfig.BOOTSTRAP_SERVERS)).isTrue();
        assertThat(WorkerConfig.DEFINITIONS.defines(WorkerConfig.SCHEMA_REGISTRY_URL)).isTrue();
        assertThat(WorkerConfig.DEFINITIONS.defines(WorkerConfig.TOPIC_PREFIX)).isTrue();
    }

    @Test
    void shouldDefineEveryClientKey() {
        assertThat(keyConstants(ClientConfig.class, "ingress.")).isEqualTo(definedKeys(ClientConfig.DEFINITIONS, "ingress."));
        for (String key : List.of(ClientConfig.BOOTSTRAP_SERVERS, ClientConfig.SCHEMA_REGISTRY_URL, ClientConfig.TOPIC_PREFIX)) {
            assertThat(ClientConfig.DEFINITIONS.defines(key)).as(key).isTrue();
        }
    }

    @Test
    void shouldDescribeEverySettingOnOneLine() {
        for (SettingDefs defs : List.of(RouterConfig.DEFINITIONS, WorkerConfig.DEFINITIONS, ClientConfig.DEFINITIONS)) {
            for (SettingDefs.SettingDef def : defs.all()) {
                assertThat(def.description()).as(def.key()).isNotBlank().doesNotContain("\n");
                assertThat(def.validValuesText() + def.defaultText()).as(def.key()).isNotBlank();
            }
        }
    }

    /** The keys a config class declares, as {@code Settings.requireKnownKeys} finds them: its public String constants under the prefix. */
    private static Set<String> keyConstants(Class<?> holder, String prefix) {
        Set<String> keys = new TreeSet<>();
        for (Field field : holder.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                try {
                    if (field.get(null) instanceof String key && key.startsWith(prefix)) {
                        keys.add(key);
                    }
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return keys;
    }

    private static Set<String> definedKeys(SettingDefs defs, String prefix) {
        Set<String> keys = new TreeSet<>();
        defs.all().forEach(def -> {
            if (def.key().startsWith(prefix)) {
                keys.add(def.key());
            }
        });
        return keys;
    }
}
