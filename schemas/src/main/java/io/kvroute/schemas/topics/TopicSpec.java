package io.kvroute.schemas.topics;

import java.util.Map;
import java.util.Objects;

/**
 * One topic as kvroute declares it: name, the value type written to it (keys are always the
 * String id named in {@code keyDoc}), and the settings it is created with.
 *
 * @param valueType the Avro class of values, or {@code byte[].class} for raw (dead-letter) records
 */
public record TopicSpec<V>(String name, Class<V> valueType, String keyDoc, int partitions, Map<String, String> configs) {
    public TopicSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(valueType, "valueType");
        if (partitions < 1) {
            throw new IllegalArgumentException("topic " + name + " needs at least one partition, was " + partitions);
        }
        configs = Map.copyOf(configs);
    }

    public boolean compacted() {
        return configs.getOrDefault("cleanup.policy", "delete").contains("compact");
    }

    public TopicSpec<V> withPartitions(int count) {
        return new TopicSpec<>(name, valueType, keyDoc, count, configs);
    }
}
