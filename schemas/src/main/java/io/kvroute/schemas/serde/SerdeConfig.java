package io.kvroute.schemas.serde;

/**
 * Configuration keys of the kvroute serde and its registry client. Names follow Confluent's
 * {@code SchemaRegistryClientConfig} (the client settings of {@code AbstractKafkaSchemaSerDeConfig}):
 * {@code basic.auth.*} and {@code bearer.auth.*} unprefixed, also read with the
 * {@value #CLIENT_NAMESPACE} prefix as Confluent's client does, and TLS under
 * {@code schema.registry.ssl.*}, so one properties file configures kvroute's serde and Confluent's.
 */
public final class SerdeConfig {
    /** Registry base URL: http(s)://host:port[/apis/ccompat/v7], or mock://scope in unit tests. */
    public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
    public static final String AUTO_REGISTER_SCHEMAS = "auto.register.schemas";
    /**
     * Class name of a {@code Serde} to use instead of kvroute's own, for example Confluent's
     * {@code io.confluent.kafka.streams.serdes.avro.SpecificAvroSerde}. It is configured with the
     * same map, so both write the same bytes against the same registry.
     */
    public static final String AVRO_SERDE_CLASS = "kvroute.avro.serde.class";

    /** Prefix under which the registry client's settings are also read, as Confluent's client does. */
    public static final String CLIENT_NAMESPACE = "schema.registry.";

    /** Where basic-auth credentials come from: only {@value #USER_INFO} is supported. */
    public static final String BASIC_AUTH_CREDENTIALS_SOURCE = "basic.auth.credentials.source";
    public static final String USER_INFO = "USER_INFO";
    /** {@code user:password} sent as HTTP Basic auth; a secret. */
    public static final String BASIC_AUTH_USER_INFO = "basic.auth.user.info";
    /** Where the bearer token comes from: only {@value #STATIC_TOKEN} is supported. */
    public static final String BEARER_AUTH_CREDENTIALS_SOURCE = "bearer.auth.credentials.source";
    public static final String STATIC_TOKEN = "STATIC_TOKEN";
    /** A token sent as {@code Authorization: Bearer}; a secret. */
    public static final String BEARER_AUTH_TOKEN = "bearer.auth.token";

    public static final String SSL_TRUSTSTORE_LOCATION = "schema.registry.ssl.truststore.location";
    public static final String SSL_TRUSTSTORE_PASSWORD = "schema.registry.ssl.truststore.password";
    public static final String SSL_TRUSTSTORE_TYPE = "schema.registry.ssl.truststore.type";
    public static final String SSL_KEYSTORE_LOCATION = "schema.registry.ssl.keystore.location";
    public static final String SSL_KEYSTORE_PASSWORD = "schema.registry.ssl.keystore.password";
    public static final String SSL_KEYSTORE_TYPE = "schema.registry.ssl.keystore.type";
    /** The private key's password in the keystore; by default the keystore's. */
    public static final String SSL_KEY_PASSWORD = "schema.registry.ssl.key.password";
    /** Key store type when none is given, as in Kafka and Confluent (the JDK's JKS type also reads PKCS12 files). */
    public static final String DEFAULT_STORE_TYPE = "JKS";

    private SerdeConfig() {
    }

    /** Whether {@code key} is a setting of the serde or its registry client, to be handed to {@link Serdes}. */
    public static boolean isSerdeKey(String key) {
        return key.startsWith(CLIENT_NAMESPACE) || key.startsWith("basic.auth.") || key.startsWith("bearer.auth.")
                || key.equals(AUTO_REGISTER_SCHEMAS) || key.equals(AVRO_SERDE_CLASS);
    }

    /** Whether {@code key} holds a secret: its value is never shown. */
    public static boolean isSecret(String key) {
        return key.endsWith(BASIC_AUTH_USER_INFO) || key.endsWith(BEARER_AUTH_TOKEN) || key.endsWith(".password");
    }
}
