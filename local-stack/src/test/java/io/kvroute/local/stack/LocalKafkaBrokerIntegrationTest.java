package io.kvroute.local.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The chaos runs' replicated cluster: a controller of its own and three brokers, as child JVMs. */
class LocalKafkaBrokerIntegrationTest {
    @TempDir
    Path dir;

    @Test
    void shouldKeepAcceptingWritesWithAllInSyncWhileOneOfThreeBrokersIsDownAndTakeItBack() throws Exception {
        try (LocalKafkaBroker cluster = new LocalKafkaBroker(dir, "384m", 3).start();
             Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
             KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                     ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(),
                     ProducerConfig.ACKS_CONFIG, "all",
                     ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000), new StringSerializer(), new StringSerializer())) {
            assertThat(cluster.pids()).hasSize(4);
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "1");
            assertThat(admin.describeConfigs(List.of(broker)).all().get().get(broker)
                    .get("add.partitions.to.txn.retry.backoff.max.ms").value())
                    .as("a write waits at the broker for the previous transaction's markers")
                    .isEqualTo(Long.toString(LocalKafkaBroker.TXN_ADD_PARTITION_WAIT_MS));
            admin.createTopics(List.of(new NewTopic("replicated", 3, cluster.replicationFactor()))).all().get();
            producer.send(new ProducerRecord<>("replicated", 0, "k", "all up")).get(60, TimeUnit.SECONDS);

            cluster.kill(0);
            producer.send(new ProducerRecord<>("replicated", 0, "k", "one broker down")).get(60, TimeUnit.SECONDS);

            cluster.start();
            await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
                TopicDescription topic = admin.describeTopics(List.of("replicated")).allTopicNames().get().get("replicated");
                assertThat(topic.partitions()).allSatisfy(p -> assertThat(p.isr()).as("back in sync").hasSize(3));
            });
        }
    }
}
