package io.kvroute.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.schemas.v1.InferenceRequest;
import java.util.Map;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes.WrapperSerde;
import org.junit.jupiter.api.Test;

class SerdesTest {

    /** Stands in for Confluent's SpecificAvroSerde: a Serde class named in configuration. */
    public static final class ConfiguredSerde extends WrapperSerde<InferenceRequest> {
        static Map<String, ?> lastConfig;

        public ConfiguredSerde() {
            super(new AvroSerde<>(InferenceRequest.class, new io.kvroute.schemas.registry.InMemorySchemaRegistryClient()),
                    new AvroSerde<>(InferenceRequest.class, new io.kvroute.schemas.registry.InMemorySchemaRegistryClient()));
        }

        @Override
        public void configure(Map<String, ?> configs, boolean isKey) {
            lastConfig = configs;
        }
    }

    @Test
    void shouldUseKvroutesOwnSerdeByDefault() {
        Serde<InferenceRequest> serde = new Serdes(Map.of(SerdeConfig.SCHEMA_REGISTRY_URL, "mock://serdes-test")).valueSerde(InferenceRequest.class);
        assertThat(serde).isInstanceOf(AvroSerde.class);
    }

    @Test
    void shouldUseTheSerdeClassNamedInConfigurationAndConfigureIt() {
        Map<String, String> config = Map.of(
                SerdeConfig.SCHEMA_REGISTRY_URL, "mock://serdes-test",
                SerdeConfig.AVRO_SERDE_CLASS, ConfiguredSerde.class.getName());
        Serde<InferenceRequest> serde = new Serdes(config).valueSerde(InferenceRequest.class);
        assertThat(serde).isInstanceOf(ConfiguredSerde.class);
        assertThat(ConfiguredSerde.lastConfig.get(SerdeConfig.SCHEMA_REGISTRY_URL)).isEqualTo("mock://serdes-test");
    }

    @Test
    void shouldNameAnUnusableSerdeClass() {
        Map<String, String> config = Map.of(
                SerdeConfig.SCHEMA_REGISTRY_URL, "mock://serdes-test",
                SerdeConfig.AVRO_SERDE_CLASS, "com.example.NoSuchSerde");
        assertThatThrownBy(() -> new Serdes(config).valueSerde(InferenceRequest.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(SerdeConfig.AVRO_SERDE_CLASS).hasMessageContaining("com.example.NoSuchSerde");
    }

    @Test
    void shouldRefuseARegistryUrlThatIsNotOne() {
        assertThatThrownBy(() -> new Serdes(Map.of(SerdeConfig.SCHEMA_REGISTRY_URL, "localhost:8081")))
                .hasMessageContaining("schema.registry.url").hasMessageContaining("localhost:8081");
    }
}
