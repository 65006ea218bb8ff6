package io.kvroute.local.stack;

import io.kvroute.bench.sim.FleetSpec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.ingress.client.Completion;
import io.kvroute.ingress.client.KvrouteClient;
import io.kvroute.ingress.client.SubmitRequest;
import io.kvroute.platform.testing.TestKafka;
import io.kvroute.platform.testing.TestRegistry;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.DeadLetterHeaders;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The whole path on a real broker and a real registry: client → requests → router (two instances
 * sharing the requests partitions) → dispatch → simulated-GPU workers in two regions → responses →
 * client. Each worker process serves two GPU slots from its one dispatch partition ({@code worker.gpus=2}), so slots
 * share partitions as a node's GPUs do.
 */
class EndToEndIntegrationTest {
    private static final int REQUESTS = 500;

    private final KvrouteTopics topics = new KvrouteTopics("e2e" + System.nanoTime(), 4);
    private final FleetSpec fleet = FleetSpec.parse("us-east=2@2,eu-west=1@20");
    private KvrouteServices services;
    private KvrouteClient client;

    @BeforeEach
    void startServices() throws Exception {
        Path state = Files.createTempDirectory("kvroute-e2e");
        services = new KvrouteServices(TestKafka.bootstrapServers(), TestRegistry.url(), topics, fleet, "kvroute", state,
                Map.of("worker.sim.speed", "4", "worker.gpus", "2"), 2).start();
        client = KvrouteClient.create(ClientConfig.of(Map.of(
                ClientConfig.BOOTSTRAP_SERVERS, TestKafka.bootstrapServers(),
                ClientConfig.SCHEMA_REGISTRY_URL, TestRegistry.url(),
                ClientConfig.TOPIC_PREFIX, topics.prefix(),
                ClientConfig.TENANT, "e2e")));
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (services != null) {
            services.close();
        }
    }

    @Test
    void shouldDeliverChunksInOrderAndExactlyOneTerminalPerRequestWhileDeadLetteringGarbage() throws Exception {
        ResponseLog log = new ResponseLog(topics);
        try (log) {
            Random random = new Random(7);
            String[] systemPrompts = {"You are a careful assistant. ".repeat(40), "Answer as a terse SQL expert. ".repeat(30)};
            List<CompletableFuture<Completion>> futures = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                if (i == REQUESTS / 2) {
                    sendGarbage("garbage-request");
                }
                String prompt = systemPrompts[i % 2] + " question " + i + " " + "x".repeat(random.nextInt(400));
                futures.add(client.submit(SubmitRequest.builder()
                        .customId("c-" + i).model(KvrouteServices.MODEL).prompt(prompt).maxTokens(4 + random.nextInt(40)).build()));
            }
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(4, java.util.concurrent.TimeUnit.MINUTES);

            for (CompletableFuture<Completion> future : futures) {
                Completion completion = future.join();
                assertThat(completion.status()).as(completion.requestId() + ": " + completion.error()).isEqualTo(ResponseStatus.COMPLETED);
                assertThat(completion.usage().completionTokens()).isPositive();
            }
            assertThat(futures.stream().map(f -> f.join().workerId()).collect(java.util.stream.Collectors.toSet()))
                    .as("both GPU slots of a worker process ran requests").contains("us-east-0-g0", "us-east-0-g1");
            await().atMost(Duration.ofSeconds(30)).until(() -> log.terminalsFor("garbage-request") == 1);
            for (CompletableFuture<Completion> future : futures) {
                log.assertWellFormed(future.join().requestId());
            }
            assertThat(services.routers()).as("each router instance placed requests and followed the other's")
                    .allSatisfy(router -> assertThat(router.peers().followed() + router.peers().queued()).isPositive());
            assertThat(log.terminal("garbage-request").getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
            assertThat(log.terminal("garbage-request").getTerminal().getError()).containsIgnoringCase("magic byte");

            ConsumerRecord<byte[], byte[]> dead = readDeadLetter();
            assertThat(new String(dead.key(), StandardCharsets.UTF_8)).isEqualTo("garbage-request");
            assertThat(header(dead, DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo(topics.requests().name());
            assertThat(header(dead, DeadLetterHeaders.ERROR_MESSAGE)).containsIgnoringCase("magic byte");
        }
    }

    private void sendGarbage(String key) {
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", TestKafka.bootstrapServers()),
                new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topics.requests().name(), key, "{\"not\": \"avro\"}".getBytes(StandardCharsets.UTF_8)));
        }
    }

    private ConsumerRecord<byte[], byte[]> readDeadLetter() {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", TestKafka.bootstrapServers(),
                "isolation.level", "read_committed"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(topics.deadLetters().name(), 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return !records.isEmpty();
            });
            assertThat(records).hasSize(1);
            return records.get(0);
        }
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        assertThat(header).as("header " + name).isNotNull();
        return new String(header.value(), StandardCharsets.UTF_8);
    }

    /** Every response event, as a read_committed reader of the responses topic sees them. */
    private static final class ResponseLog implements AutoCloseable {
        private final Map<String, List<ResponseEvent>> events = new ConcurrentHashMap<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;

        ResponseLog(KvrouteTopics topics) {
            KafkaConsumer<String, ResponseEvent> consumer = new KafkaConsumer<>(Map.of(
                    "bootstrap.servers", TestKafka.bootstrapServers(), "isolation.level", "read_committed"),
                    new StringDeserializer(), Serdes.forRegistryUrl(TestRegistry.url()).valueSerde(ResponseEvent.class).deserializer());
            String topic = topics.responses().name();
            thread = new Thread(() -> {
                try (consumer) {
                    List<TopicPartition> partitions = new ArrayList<>();
                    for (int p = 0; p < topics.responses().partitions(); p++) {
                        partitions.add(new TopicPartition(topic, p));
                    }
                    consumer.assign(partitions);
                    consumer.seekToBeginning(partitions);
                    while (running.get()) {
                        for (ConsumerRecord<String, ResponseEvent> record : consumer.poll(Duration.ofMillis(100))) {
                            events.computeIfAbsent(record.key(), k -> new CopyOnWriteArrayList<>()).add(record.value());
                        }
                    }
                }
            }, "e2e-response-log");
            thread.start();
        }

        long terminalsFor(String requestId) {
            return events.getOrDefault(requestId, List.of()).stream().filter(e -> e.getTerminal() != null).count();
        }

        ResponseEvent terminal(String requestId) {
            return events.get(requestId).stream().filter(e -> e.getTerminal() != null).findFirst().orElseThrow();
        }

        void assertWellFormed(String requestId) {
            await().atMost(Duration.ofSeconds(30)).until(() -> terminalsFor(requestId) >= 1);
            List<ResponseEvent> all = events.get(requestId);
            assertThat(terminalsFor(requestId)).as("terminal events of " + requestId).isEqualTo(1);
            ResponseEvent terminal = terminal(requestId);
            List<Integer> sequences = all.stream()
                    .filter(e -> e.getTerminal() == null && e.getAttempt() == terminal.getAttempt())
                    .map(ResponseEvent::getSequence).toList();
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < sequences.size(); i++) {
                expected.add(i);
            }
            assertThat(sequences).as("chunk sequence of " + requestId + " in arrival order").isEqualTo(expected);
            assertThat(sequences).as("chunks of " + requestId).isNotEmpty();
            assertThat(terminal.getSequence()).isEqualTo(sequences.size());
            assertThat(all.indexOf(terminal)).as("terminal after its chunks").isEqualTo(all.size() - 1);
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            thread.join(5_000);
        }
    }

}
