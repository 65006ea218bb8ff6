package io.kvroute.schemas.serde;

/** Configuration keys of the kvroute serde; names match Confluent's serializer where they overlap. */
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

    private SerdeConfig() {
    }
}
