package io.kvroute.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvroute.platform.config.Settings;
import io.kvroute.platform.kafka.TopicCreator;
import io.kvroute.platform.testing.TestKafka;
import io.kvroute.platform.testing.TestRegistry;
import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.Priority;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.RoutingDecision;
import io.kvroute.schemas.v1.WorkerStatus;
import io.kvroute.schemas.v1.WorkerTelemetry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tenant quotas and priorities on a real broker and registry. */
class AdmissionIntegrationTest {
    @TempDir
    Path stateDir;

    private Map<String, String> settings(String prefix) {
        return RouterItSettings.of(prefix, stateDir);
    }

    private static KvrouteTopics createTopics(int partitions) {
        KvrouteTopics topics = new KvrouteTopics("adm-" + UUID.randomUUID().toString().substring(0, 8), partitions);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", TestKafka.bootstrapServers()))) {
            new TopicCreator(admin, (short) 1).ensure(topics.all(Map.of("us-east", partitions)));
        }
        return topics;
    }

    @Test
    void shouldRejectATenantOverItsRequestsPerMinuteWhileAnotherTenantIsDispatched() throws Exception {
        KvrouteTopics topics = createTopics(2);
        Map<String, String> settings = settings(topics.prefix());
        settings.put("router.tenant.quotas", "bulk=2/-/reject");
        Serdes serdes = Serdes.forRegistryUrl(TestRegistry.url());

        try (RouterApp app = RouterApp.start(Settings.of(settings));
             KafkaProducer<String, Object> producer = producer(serdes)) {
            assertThat(app.awaitRunning(Duration.ofSeconds(60))).isTrue();
            producer.send(new ProducerRecord<>(topics.workerTelemetry().name(), "east-gpu-1", telemetry(List.of(0, 1)))).get();
            for (int i = 0; i < 4; i++) {
                producer.send(new ProducerRecord<>(topics.requests().name(), "bulk-" + i, request("bulk-" + i, "bulk", Priority.BATCH)));
            }
            for (int i = 0; i < 2; i++) {
                producer.send(new ProducerRecord<>(topics.requests().name(), "other-" + i, request("other-" + i, "other", Priority.BATCH)));
            }
            producer.flush();

            List<ConsumerRecord<String, DispatchedRequest>> dispatched = read(topics.dispatchTopic("us-east"),
                    serdes.valueSerde(DispatchedRequest.class).deserializer(), records -> records.size() >= 4);
            List<ConsumerRecord<String, ResponseEvent>> responses = read(topics.responses().name(),
                    serdes.valueSerde(ResponseEvent.class).deserializer(), records -> records.size() >= 2);

            assertThat(dispatched).extracting(ConsumerRecord::key).hasSize(4).contains("other-0", "other-1")
                    .filteredOn(id -> id.startsWith("bulk")).hasSize(2);
            assertThat(responses).hasSize(2).allSatisfy(r -> {
                assertThat(r.key()).startsWith("bulk");
                assertThat(r.value().getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
                assertThat(r.value().getTerminal().getError()).isEqualTo("over quota: tenant bulk over its quota of 2 requests per minute");
            });
            assertThat(responses).extracting(ConsumerRecord::key)
                    .doesNotContainAnyElementsOf(dispatched.stream().map(ConsumerRecord::key).toList());
            List<ConsumerRecord<String, RoutingDecision>> decisions = read(topics.decisions().name(),
                    serdes.valueSerde(RoutingDecision.class).deserializer(), records -> records.size() >= 6);
            assertThat(decisions).extracting(r -> r.value().getOutcome())
                    .containsOnly(DecisionOutcome.DISPATCHED, DecisionOutcome.REJECTED).hasSize(6);
            assertThat(app.meterRegistry().get(RouterMetrics.REQUESTS_THROTTLED).tag("tenant", "bulk").tag("action", "reject")
                    .counter().count()).isEqualTo(2.0);
        }
    }

    @Test
    void shouldKeepATenantsQuotaWhenItsPartitionMovesToAnotherInstance(@TempDir Path freshStateDir) throws Exception {
        KvrouteTopics topics = createTopics(2);
        Map<String, String> settings = settings(topics.prefix());
        settings.put("router.tenant.quotas", "bulk=2/-/reject");
        Serdes serdes = Serdes.forRegistryUrl(TestRegistry.url());

        try (KafkaProducer<String, Object> producer = producer(serdes)) {
            try (RouterApp app = RouterApp.start(Settings.of(settings))) {
                assertThat(app.awaitRunning(Duration.ofSeconds(60))).isTrue();
                producer.send(new ProducerRecord<>(topics.workerTelemetry().name(), "east-gpu-1", telemetry(List.of(0, 1)))).get();
                producer.send(new ProducerRecord<>(topics.requests().name(), "bulk-0", request("bulk-0", "bulk", Priority.BATCH))).get();
                producer.send(new ProducerRecord<>(topics.requests().name(), "bulk-1", request("bulk-1", "bulk", Priority.BATCH))).get();
                read(topics.dispatchTopic("us-east"), serdes.valueSerde(DispatchedRequest.class).deserializer(),
                        records -> records.size() >= 2);
            }
            // the same application on another machine: the tenant's buckets come back from the changelog
            settings.put("router.state.dir", freshStateDir.toString());
            try (RouterApp app = RouterApp.start(Settings.of(settings))) {
                assertThat(app.awaitRunning(Duration.ofSeconds(60))).isTrue();
                producer.send(new ProducerRecord<>(topics.requests().name(), "bulk-2", request("bulk-2", "bulk", Priority.BATCH))).get();

                List<ConsumerRecord<String, ResponseEvent>> responses = read(topics.responses().name(),
                        serdes.valueSerde(ResponseEvent.class).deserializer(), records -> !records.isEmpty());
                assertThat(responses).singleElement().satisfies(r -> {
                    assertThat(r.key()).isEqualTo("bulk-2");
                    assertThat(r.value().getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
                });
            }
        }
    }

    @Test
    void shouldServeWaitingInteractiveRequestsBeforeBatchOnes() throws Exception {
        KvrouteTopics topics = createTopics(1);
        Serdes serdes = Serdes.forRegistryUrl(TestRegistry.url());

        try (RouterApp app = RouterApp.start(Settings.of(settings(topics.prefix())));
             KafkaProducer<String, Object> producer = producer(serdes)) {
            assertThat(app.awaitRunning(Duration.ofSeconds(60))).isTrue();
            producer.send(new ProducerRecord<>(topics.requests().name(), "batch-1", request("batch-1", "tenant-a", Priority.BATCH))).get();
            producer.send(new ProducerRecord<>(topics.requests().name(), "batch-2", request("batch-2", "tenant-b", Priority.BATCH))).get();
            producer.send(new ProducerRecord<>(topics.requests().name(), "interactive-1",
                    request("interactive-1", "tenant-a", Priority.INTERACTIVE))).get();
            // no worker has reported yet: all three wait in the router
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> app.meterRegistry().get(RouterMetrics.REQUESTS_PARKED).gauge().value() == 3.0);

            producer.send(new ProducerRecord<>(topics.workerTelemetry().name(), "east-gpu-1", telemetry(List.of(0)))).get();

            List<ConsumerRecord<String, DispatchedRequest>> dispatched = read(topics.dispatchTopic("us-east"),
                    serdes.valueSerde(DispatchedRequest.class).deserializer(), records -> records.size() >= 3);
            assertThat(dispatched).extracting(ConsumerRecord::key).containsExactly("interactive-1", "batch-1", "batch-2");
        }
    }

    private static InferenceRequest request(String id, String tenant, Priority priority) {
        return InferenceRequest.newBuilder()
                .setRequestId(id).setTenant(tenant).setModel("llama-3.1-8b").setPrompt("Hello there")
                .setMaxTokens(16).setPriority(priority).setPromptTokenEstimate(3).setSubmittedAtMs(System.currentTimeMillis())
                .build();
    }

    private static WorkerTelemetry telemetry(List<Integer> partitions) {
        return WorkerTelemetry.newBuilder()
                .setWorkerId("east-gpu-1").setRegion("us-east").setModels(List.of("llama-3.1-8b"))
                .setOwnedPartitions(partitions).setKvBlocksTotal(28_000).setKvBlocksUsed(0).setKvUsage(0.0)
                .setRunningRequests(0).setWaitingRequests(0).setStatus(WorkerStatus.HEALTHY)
                .setObservedAtMs(System.currentTimeMillis())
                .build();
    }

    private static KafkaProducer<String, Object> producer(Serdes serdes) {
        Map<String, Object> config = new HashMap<>(TestKafka.clientConfig());
        config.put("enable.idempotence", "true");
        config.put("acks", "all");
        org.apache.kafka.common.serialization.Serializer<Object> values = (topic, data) ->
                data instanceof WorkerTelemetry t
                        ? serdes.valueSerde(WorkerTelemetry.class).serializer().serialize(topic, t)
                        : serdes.valueSerde(InferenceRequest.class).serializer().serialize(topic, (InferenceRequest) data);
        return new KafkaProducer<>(config, new StringSerializer(), values);
    }

    /** Reads the topic from the start until {@code enough} holds, then half a second more (to see extras). */
    private static <V> List<ConsumerRecord<String, V>> read(String topic, Deserializer<V> values,
                                                            Predicate<List<ConsumerRecord<String, V>>> enough) {
        Map<String, Object> config = new HashMap<>(TestKafka.clientConfig());
        config.put("group.id", "adm-reader-" + UUID.randomUUID());
        config.put("auto.offset.reset", "earliest");
        config.put("isolation.level", "read_committed");
        List<ConsumerRecord<String, V>> records = new ArrayList<>();
        try (KafkaConsumer<String, V> consumer = new KafkaConsumer<>(config, new StringDeserializer(), values)) {
            consumer.subscribe(List.of(topic));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return enough.test(records);
            });
            consumer.poll(Duration.ofMillis(500)).forEach(records::add);
        }
        return records;
    }
}
