package io.kvroute.platform.config;

import io.kvroute.platform.config.SettingDefs.SettingDef;
import io.kvroute.platform.config.SettingDefs.Type;
import io.kvroute.schemas.registry.RegistrySecurity;
import io.kvroute.schemas.registry.SchemaRegistryConfigException;
import io.kvroute.schemas.serde.SerdeConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The schema registry client's credential and TLS settings, which the router, the workers and the
 * clients share: their definitions for each component's reference, the keys of a process's
 * settings that go to {@code Serdes}, and the start-up check that turns a wrong one into a
 * {@link ConfigException} naming the key (a secret's value shown as {@code ***}).
 */
public final class RegistrySettings {
    private static final String ALSO_PREFIXED = " Also read as `" + SerdeConfig.CLIENT_NAMESPACE + "<key>`, as Confluent's serializer does.";

    /** The credential and TLS settings, under the names Confluent's serializer uses. */
    public static final SettingDefs DEFINITIONS = SettingDefs.builder()
            .define(new SettingDef(SerdeConfig.BASIC_AUTH_CREDENTIALS_SOURCE, Type.STRING, null, null, List.of(SerdeConfig.USER_INFO), null,
                    null, "(none)", "Set to USER_INFO to send the registry HTTP Basic auth from " + SerdeConfig.BASIC_AUTH_USER_INFO + "." + ALSO_PREFIXED))
            .password(SerdeConfig.BASIC_AUTH_USER_INFO, "`user:password` for the registry's Basic auth; never logged or shown." + ALSO_PREFIXED)
            .define(new SettingDef(SerdeConfig.BEARER_AUTH_CREDENTIALS_SOURCE, Type.STRING, null, null, List.of(SerdeConfig.STATIC_TOKEN), null,
                    null, "(none)", "Set to STATIC_TOKEN to send " + SerdeConfig.BEARER_AUTH_TOKEN
                    + " as `Authorization: Bearer`; not together with basic auth." + ALSO_PREFIXED))
            .password(SerdeConfig.BEARER_AUTH_TOKEN, "The registry's bearer token; never logged or shown." + ALSO_PREFIXED)
            .stringWorkedOut(SerdeConfig.SSL_TRUSTSTORE_LOCATION, "the JVM's trust store", "a readable key store file",
                    "Certificates an https:// registry is trusted by (for a private CA or a self-signed registry).")
            .password(SerdeConfig.SSL_TRUSTSTORE_PASSWORD, "The truststore's password.")
            .stringWorkedOut(SerdeConfig.SSL_TRUSTSTORE_TYPE, "`" + SerdeConfig.DEFAULT_STORE_TYPE + "`", "JKS or PKCS12 (either reads both)", "The truststore's type.")
            .stringWorkedOut(SerdeConfig.SSL_KEYSTORE_LOCATION, "(none)", "a readable key store file",
                    "The client certificate and key presented to a registry that requires mutual TLS.")
            .password(SerdeConfig.SSL_KEYSTORE_PASSWORD, "The keystore's password.")
            .stringWorkedOut(SerdeConfig.SSL_KEYSTORE_TYPE, "`" + SerdeConfig.DEFAULT_STORE_TYPE + "`", "JKS or PKCS12 (either reads both)", "The keystore's type.")
            .password(SerdeConfig.SSL_KEY_PASSWORD, "The private key's password, when it differs from the keystore's.")
            .build();

    private RegistrySettings() {
    }

    /** The keys of {@code settings} that belong to the serde and its registry client, checked. */
    public static Map<String, Object> serdeConfig(Settings settings) {
        Map<String, Object> serde = new HashMap<>();
        settings.asMap().forEach((key, value) -> {
            if (value != null && SerdeConfig.isSerdeKey(key)) {
                serde.put(key, value);
            }
        });
        check(serde);
        return serde;
    }

    /** Fails with a {@link ConfigException} naming the key when a registry credential or TLS setting in {@code config} is wrong. */
    public static void check(Map<String, ?> config) {
        try {
            RegistrySecurity.from(config);
        } catch (SchemaRegistryConfigException e) {
            throw new ConfigException(e.key(), e.shownValue(), e.problem());
        }
    }
}
