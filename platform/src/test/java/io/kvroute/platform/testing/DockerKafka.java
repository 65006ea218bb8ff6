package io.kvroute.platform.testing;

import org.testcontainers.kafka.KafkaContainer;

/** The {@code apache/kafka} image in KRaft mode, for users who run the suite with Docker. */
final class DockerKafka implements AutoCloseable {
    private final KafkaContainer container;

    private DockerKafka(KafkaContainer container) {
        this.container = container;
    }

    static DockerKafka start() {
        KafkaContainer container = new KafkaContainer("apache/kafka:4.1.1")
                .withEnv("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false")
                .withEnv("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0");
        container.start();
        return new DockerKafka(container);
    }

    String bootstrapServers() {
        return container.getBootstrapServers();
    }

    @Override
    public void close() {
        container.stop();
    }
}
