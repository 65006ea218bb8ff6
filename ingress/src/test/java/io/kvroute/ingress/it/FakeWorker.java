package io.kvroute.ingress.it;

import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.TerminalResult;
import io.kvroute.schemas.v1.Usage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Plays the worker side for the tests: writes chunks with a plain idempotent producer and
 * terminals in transactions, like a real worker. Optionally answers every request on the requests
 * topic (tenant {@value #MANUAL_TENANT} excepted) with the chunks "echo:" and the custom id, and
 * rejects requests of model {@value #REJECT_MODEL}.
 */
final class FakeWorker implements AutoCloseable {
    static final String MANUAL_TENANT = "manual";
    static final String REJECT_MODEL = "no-such-model";

    private final IngressStack stack;
    private final KafkaProducer<String, ResponseEvent> chunks;
    private final KafkaProducer<String, ResponseEvent> terminals;
    private final Set<String> seenRequests = ConcurrentHashMap.newKeySet();
    private final Map<String, InferenceRequest> received = new ConcurrentHashMap<>();
    private volatile boolean running = true;
    private KafkaConsumer<String, InferenceRequest> consumer;
    private Thread responder;

    FakeWorker(IngressStack stack) {
        this.stack = stack;
        var serializer = stack.serdes.valueSerde(ResponseEvent.class).serializer();
        this.chunks = new KafkaProducer<>(Map.of("bootstrap.servers", stack.bootstrapServers, "acks", "all", "enable.idempotence", "true"),
                new StringSerializer(), serializer);
        this.terminals = new KafkaProducer<>(Map.of("bootstrap.servers", stack.bootstrapServers,
                "transactional.id", "fake-worker-" + UUID.randomUUID()), new StringSerializer(), serializer);
        terminals.initTransactions();
    }

    /** Starts answering requests as they arrive. */
    FakeWorker answering() {
        consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", stack.bootstrapServers, "isolation.level", "read_committed"),
                new StringDeserializer(), stack.serdes.valueSerde(InferenceRequest.class).deserializer());
        String topic = stack.topics.requests().name();
        List<TopicPartition> partitions = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        responder = new Thread(this::answer, "fake-worker");
        responder.start();
        return this;
    }

    Map<String, InferenceRequest> received() {
        return received;
    }

    private void answer() {
        try {
            while (running) {
                for (ConsumerRecord<String, InferenceRequest> record : consumer.poll(Duration.ofMillis(100))) {
                    InferenceRequest request = record.value();
                    received.put(request.getRequestId(), request);
                    if (request.getTenant().equals(MANUAL_TENANT) || !seenRequests.add(request.getRequestId())) {
                        continue;
                    }
                    String id = request.getRequestId();
                    if (request.getModel().equals(REJECT_MODEL)) {
                        terminal(id, 1, 0, ResponseStatus.REJECTED, 0);
                    } else {
                        chunk(id, 1, 0, "echo:");
                        chunk(id, 1, 1, String.valueOf(request.getCustomId()));
                        terminal(id, 1, 2, ResponseStatus.COMPLETED, 2);
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        }
    }

    void chunk(String requestId, int attempt, int sequence, String text) {
        chunks.send(new ProducerRecord<>(stack.topics.responses().name(), requestId, ResponseEvent.newBuilder()
                .setRequestId(requestId).setAttempt(attempt).setSequence(sequence).setTextDelta(text)
                .setProducedAtMs(1_000).build()));
        chunks.flush();
    }

    /** Synchronized, as {@link #duplicateRejection}: the responder thread and a test share the one transactional producer. */
    synchronized void terminal(String requestId, int attempt, int sequence, ResponseStatus status, int completionTokens) {
        TerminalResult result = TerminalResult.newBuilder()
                .setStatus(status)
                .setFinishReason(status == ResponseStatus.COMPLETED ? "stop" : null)
                .setUsage(new Usage(30, completionTokens, 16))
                .setTtftMs(status == ResponseStatus.COMPLETED ? 12L : null)
                .setWorkerId(status == ResponseStatus.COMPLETED ? "fake-0" : null)
                .setRegion(status == ResponseStatus.COMPLETED ? "local" : null)
                .setError(status == ResponseStatus.COMPLETED ? null : "rejected by test")
                .build();
        terminals.beginTransaction();
        terminals.send(new ProducerRecord<>(stack.topics.responses().name(), requestId, ResponseEvent.newBuilder()
                .setRequestId(requestId).setAttempt(attempt).setSequence(sequence).setTerminal(result)
                .setProducedAtMs(1_700_000_000_000L).build()));
        terminals.commitTransaction();
    }

    /** What the router writes for a later submission that reused {@code requestId}. */
    synchronized void duplicateRejection(String requestId) {
        TerminalResult result = TerminalResult.newBuilder()
                .setStatus(ResponseStatus.REJECTED)
                .setFinishReason("rejected")
                .setUsage(new Usage(0, 0, 0))
                .setError("duplicate_request_id: duplicate request id")
                .build();
        terminals.beginTransaction();
        terminals.send(new ProducerRecord<>(stack.topics.responses().name(), requestId, ResponseEvent.newBuilder()
                .setRequestId(requestId).setAttempt(0).setSequence(0).setTerminal(result).setDuplicate(true)
                .setProducedAtMs(1_700_000_000_000L).build()));
        terminals.commitTransaction();
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        if (consumer != null) {
            consumer.wakeup();
            responder.join();
            consumer.close();
        }
        chunks.close();
        terminals.close();
    }
}
