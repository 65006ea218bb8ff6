package io.kvroute.schemas.serde;

import io.kvroute.schemas.registry.SchemaRegistries;
import io.kvroute.schemas.registry.SchemaRegistryClient;
import java.util.Map;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Makes the value serdes of every kvroute topic from one configuration. One registry client (and
 * its caches) is shared by all serdes made here; its URL, credentials and TLS trust come from the
 * same configuration ({@link SerdeConfig}).
 */
public final class Serdes {
    private final Map<String, ?> config;
    private final SchemaRegistryClient registry;
    private final boolean autoRegister;

    public Serdes(Map<String, ?> config) {
        this.config = Map.copyOf(config);
        this.registry = SchemaRegistries.forConfig(config);
        Object auto = config.get(SerdeConfig.AUTO_REGISTER_SCHEMAS);
        this.autoRegister = auto == null || Boolean.parseBoolean(auto.toString());
    }

    public Serdes(SchemaRegistryClient registry) {
        this.config = Map.of();
        this.registry = Objects.requireNonNull(registry);
        this.autoRegister = true;
    }

    public static Serdes forRegistryUrl(String url) {
        return new Serdes(Map.of(SerdeConfig.SCHEMA_REGISTRY_URL, url));
    }

    /**
     * {@code serializer} writing under {@code subjectTopic}'s schema subject whatever topic it is asked for: records of
     * tenants' topics ({@code <prefix>.responses.<tenant>}, ...) use their shared topic's subject, so a new tenant
     * registers nothing (a registry refusing registration, or granting by subject, would otherwise stop it).
     */
    public static <T> Serializer<T> underSubjectOf(String subjectTopic, Serializer<T> serializer) {
        return (topic, value) -> serializer.serialize(subjectTopic, value);
    }

    public SchemaRegistryClient registry() {
        return registry;
    }

    @SuppressWarnings("unchecked")
    public <T extends SpecificRecord> Serde<T> valueSerde(Class<T> type) {
        Object replacement = config.get(SerdeConfig.AVRO_SERDE_CLASS);
        if (replacement != null && !replacement.toString().isBlank()) {
            try {
                Serde<T> serde = (Serde<T>) Class.forName(replacement.toString()).getDeclaredConstructor().newInstance();
                serde.configure(config, false);
                return serde;
            } catch (ReflectiveOperationException | ClassCastException e) {
                throw new IllegalArgumentException(SerdeConfig.AVRO_SERDE_CLASS + " = '" + replacement
                        + "' cannot be made into a Serde: " + e, e);
            }
        }
        return new AvroSerde<>(type, registry, autoRegister, false);
    }
}
