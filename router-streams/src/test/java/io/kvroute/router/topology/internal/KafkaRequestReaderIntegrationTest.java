package io.kvroute.router.topology.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.platform.testing.TestKafka;
import io.kvroute.platform.testing.TestRegistry;
import io.kvroute.schemas.serde.SerdeConfig;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.v1.InferenceRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The router reads a request back by offset from a real broker, and says why when it cannot. */
class KafkaRequestReaderIntegrationTest {
    private final Serdes serdes = new Serdes(Map.of(SerdeConfig.SCHEMA_REGISTRY_URL, TestRegistry.url()));
    private final String topic = "reader-it-" + UUID.randomUUID();

    @Test
    void shouldReadTheRequestAtItsOffsetAndRefuseAnotherIdOrARecordGoneFromTheLog() throws Exception {
        List<RecordMetadata> written = new ArrayList<>();
        try (Admin admin = Admin.create(TestKafka.clientConfig())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            try (KafkaProducer<String, InferenceRequest> producer = new KafkaProducer<>(Map.<String, Object>of(
                    "bootstrap.servers", TestKafka.bootstrapServers()), new StringSerializer(),
                    serdes.valueSerde(InferenceRequest.class).serializer())) {
                for (int i = 0; i < 3; i++) {
                    written.add(producer.send(new ProducerRecord<>(topic, "req-" + i, request("req-" + i))).get());
                }
            }
            try (KafkaRequestReader reader = new KafkaRequestReader(TestKafka.clientConfig(),
                    serdes.valueSerde(InferenceRequest.class).deserializer(), "reader-it")) {
                RequestSource second = new RequestSource(topic, 0, written.get(1).offset());

                assertThat(reader.read(second, "req-1")).isEqualTo(request("req-1"));
                assertThat(reader.read(new RequestSource(topic, 0, written.get(2).offset()), "req-2").getPrompt())
                        .isEqualTo("the prompt of req-2");
                assertThatThrownBy(() -> reader.read(second, "req-9"))
                        .isInstanceOf(RequestReader.UnreadableRequestException.class)
                        .hasMessageContaining("is not request req-9");

                admin.deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(written.get(2).offset())))
                        .all().get();
                assertThatThrownBy(() -> reader.read(second, "req-1"))
                        .as("gone with the log's start, as after the topic's retention")
                        .isInstanceOf(RequestReader.UnreadableRequestException.class)
                        .hasMessageContaining("cannot read request req-1 back from " + topic + "-0@" + written.get(1).offset());
            }
        }
    }

    private static InferenceRequest request(String id) {
        return InferenceRequest.newBuilder()
                .setRequestId(id).setTenant("t").setModel("llama-3.1-8b").setPrompt("the prompt of " + id)
                .setMaxTokens(16).setPromptTokenEstimate(4).setSubmittedAtMs(1_000L).build();
    }
}
