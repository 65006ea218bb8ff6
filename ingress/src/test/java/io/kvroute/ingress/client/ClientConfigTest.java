package io.kvroute.ingress.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.ingress.prompt.PrefixSalt;
import io.kvroute.platform.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientConfigTest {
    private static final String SECRET = "s3cret-salt-for-acme-and-globex";

    private static Map<String, String> base() {
        Map<String, String> values = new HashMap<>();
        values.put(ClientConfig.BOOTSTRAP_SERVERS, "127.0.0.1:9092");
        values.put(ClientConfig.SCHEMA_REGISTRY_URL, "http://127.0.0.1:8081");
        values.put("kafka.sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required password=\"p4ss\";");
        return values;
    }

    @Test
    void shouldSaltEachTenantWithItsOwnWhenNoSaltIsConfigured() {
        assertThat(ClientConfig.of(base()).prefixSalt()).isEmpty();
    }

    @Test
    void shouldReadThePrefixSaltFromTheSettingOrAFile(@TempDir Path dir) throws Exception {
        Map<String, String> inline = base();
        inline.put(ClientConfig.PREFIX_SALT, SECRET);
        Path file = Files.writeString(dir.resolve("salt"), SECRET + "\n");
        Map<String, String> fromFile = base();
        fromFile.put(ClientConfig.PREFIX_SALT_FILE, file.toString());

        assertThat(ClientConfig.of(inline).prefixSalt()).contains(PrefixSalt.ofSecret(SECRET));
        assertThat(ClientConfig.of(fromFile).prefixSalt()).contains(PrefixSalt.ofSecret(SECRET));
    }

    @Test
    void shouldNeverShowThePrefixSaltOrKafkaCredentials() {
        Map<String, String> values = base();
        values.put(ClientConfig.PREFIX_SALT, SECRET);

        String shown = ClientConfig.of(values).toString();

        assertThat(shown).doesNotContain(SECRET).doesNotContain("p4ss").contains("prefixSalt=***").contains("sasl.jaas.config");
        assertThat(ClientConfig.of(values).prefixSalt().orElseThrow().toString()).doesNotContain(SECRET);
    }

    @Test
    void shouldRefuseABadSaltWithoutShowingIt(@TempDir Path dir) {
        Map<String, String> tooShort = base();
        tooShort.put(ClientConfig.PREFIX_SALT, "tiny-salt");
        Map<String, String> both = base();
        both.put(ClientConfig.PREFIX_SALT, SECRET);
        both.put(ClientConfig.PREFIX_SALT_FILE, dir.resolve("salt").toString());
        Map<String, String> missingFile = base();
        missingFile.put(ClientConfig.PREFIX_SALT_FILE, dir.resolve("absent").toString());

        assertThatThrownBy(() -> ClientConfig.of(tooShort)).isInstanceOf(ConfigException.class)
                .hasMessageContaining(ClientConfig.PREFIX_SALT).hasMessageContaining("had 9").hasMessageNotContaining("tiny-salt");
        assertThatThrownBy(() -> ClientConfig.of(both)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("cannot be set together").hasMessageNotContaining(SECRET);
        assertThatThrownBy(() -> ClientConfig.of(missingFile)).isInstanceOf(ConfigException.class)
                .hasMessageContaining(ClientConfig.PREFIX_SALT_FILE).hasMessageContaining("cannot be read");
    }
}
