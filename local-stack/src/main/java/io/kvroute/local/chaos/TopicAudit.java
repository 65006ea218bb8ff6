package io.kvroute.local.chaos;

import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.DeadLetterHeaders;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.RoutingDecision;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * What the topics say happened, read after the run as any downstream reader would (committed
 * records only, from the beginning): every terminal result per request and attempt, every
 * dispatch, every dispatch decision, every dead letter. Independent of the client library, so a
 * bug there cannot hide a lost or doubled result.
 */
public final class TopicAudit {
    /** A terminal event on the responses topic: by whom (null if unknown) and when it was written (record timestamp). */
    public record Terminal(int attempt, ResponseStatus status, String workerId, long writtenAtMs) {
        public Terminal(int attempt, ResponseStatus status) {
            this(attempt, status, null, 0L);
        }
    }

    /** A DISPATCHED decision: where and when. */
    public record Dispatch(String requestId, String region, long decidedAtMs) {
    }

    /** A dead letter: its key, the topic it came from, and the reason header. */
    public record DeadLetter(String key, String sourceTopic, String reason) {
    }

    private final Map<String, List<Terminal>> terminals = new HashMap<>();
    private final Map<String, Set<Integer>> attempts = new HashMap<>();
    private final Map<String, Map<Integer, Integer>> dispatchRecords = new HashMap<>();
    private final Map<String, List<Long>> dispatchWrittenAtMs = new HashMap<>();
    private final List<Dispatch> dispatchDecisions = new ArrayList<>();
    private final List<DeadLetter> deadLetters = new ArrayList<>();
    /** What the topics say of each request, for a failed run's report: (record time, what). */
    private final Map<String, List<Map.Entry<Long, String>>> events = new HashMap<>();
    private long undecodable;

    public static TopicAudit read(String bootstrapServers, Serdes serdes, KvrouteTopics topics, Collection<String> regions,
                                  Duration timeout) {
        TopicAudit audit = new TopicAudit();
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.CLIENT_ID_CONFIG, "kvroute-chaos-audit");
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer())) {
            audit.readToEnd(consumer, topics.requests().name(), timeout, record ->
                    audit.event(record.key(), record.timestamp(), "request " + record.topic() + "/" + record.partition()
                            + "@" + record.offset()));
            Deserializer<ResponseEvent> responses = serdes.valueSerde(ResponseEvent.class).deserializer();
            audit.readToEnd(consumer, topics.responses().name(), timeout, record -> {
                ResponseEvent event = audit.decode(responses, record);
                if (event != null) {
                    audit.attempts.computeIfAbsent(event.getRequestId(), id -> new HashSet<>()).add(event.getAttempt());
                    if (event.getTerminal() != null) {
                        audit.event(event.getRequestId(), record.timestamp(), "terminal " + event.getTerminal().getStatus()
                                + " attempt " + event.getAttempt() + (event.getDuplicate() ? " (duplicate submission)" : ""));
                    }
                }
                // a duplicate submission's rejection answers that submission, not the request (the response rule)
                if (event != null && event.getTerminal() != null && !event.getDuplicate()) {
                    audit.terminals.computeIfAbsent(event.getRequestId(), id -> new ArrayList<>())
                            .add(new Terminal(event.getAttempt(), event.getTerminal().getStatus(),
                                    event.getTerminal().getWorkerId(), record.timestamp()));
                }
            });
            Deserializer<DispatchedRequest> dispatched = serdes.valueSerde(DispatchedRequest.class).deserializer();
            for (String region : regions) {
                audit.readToEnd(consumer, topics.dispatchTopic(region), timeout, record -> {
                    DispatchedRequest value = audit.decode(dispatched, record);
                    if (value != null) {
                        audit.event(record.key(), record.timestamp(), "dispatch " + record.topic() + "/" + record.partition()
                                + " attempt " + value.getAttempt());
                        audit.dispatchRecords.computeIfAbsent(record.key(), id -> new HashMap<>()).merge(value.getAttempt(), 1, Integer::sum);
                        audit.dispatchWrittenAtMs.computeIfAbsent(record.key(), id -> new ArrayList<>()).add(record.timestamp());
                    }
                });
            }
            Deserializer<RoutingDecision> decisions = serdes.valueSerde(RoutingDecision.class).deserializer();
            audit.readToEnd(consumer, topics.decisions().name(), timeout, record -> {
                RoutingDecision decision = audit.decode(decisions, record);
                if (decision != null) {
                    audit.event(decision.getRequestId(), record.timestamp(), "decision " + decision.getOutcome()
                            + (decision.getRegion() == null ? "" : " " + decision.getRegion()));
                }
                if (decision != null && decision.getOutcome() == DecisionOutcome.DISPATCHED) {
                    audit.dispatchDecisions.add(new Dispatch(decision.getRequestId(), decision.getRegion(), decision.getDecidedAtMs()));
                }
            });
            audit.readToEnd(consumer, topics.deadLetters().name(), timeout, record ->
                    audit.deadLetters.add(new DeadLetter(record.key(), header(record, DeadLetterHeaders.SOURCE_TOPIC),
                            header(record, DeadLetterHeaders.ERROR_MESSAGE))));
        }
        return audit;
    }

    private void event(String requestId, long atMs, String what) {
        if (requestId != null) {
            events.computeIfAbsent(requestId, id -> new ArrayList<>()).add(Map.entry(atMs, what));
        }
    }

    /** A request's records across the audited topics in time order, e.g. for a request with no terminal. */
    public String story(String requestId) {
        List<Map.Entry<Long, String>> seen = events.getOrDefault(requestId, List.of());
        if (seen.isEmpty()) {
            return requestId + ": no decision, dispatch or response";
        }
        long first = seen.stream().mapToLong(Map.Entry::getKey).min().orElseThrow();
        return requestId + ": " + seen.stream()
                .sorted(Map.Entry.comparingByKey())
                .map(e -> "+" + (e.getKey() - first) + " ms " + e.getValue())
                .collect(Collectors.joining("; "));
    }

    private <T> T decode(Deserializer<T> deserializer, ConsumerRecord<String, byte[]> record) {
        try {
            return deserializer.deserialize(record.topic(), record.value());
        } catch (RuntimeException e) {
            undecodable++;
            return null;
        }
    }

    private void readToEnd(KafkaConsumer<String, byte[]> consumer, String topic, Duration timeout,
                           Consumer<ConsumerRecord<String, byte[]>> sink) {
        List<TopicPartition> partitions = consumer.partitionsFor(topic, timeout).stream()
                .map(p -> new TopicPartition(topic, p.partition()))
                .toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (partitions.stream().anyMatch(tp -> consumer.position(tp, timeout) < end.get(tp))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("reading " + topic + " to its end took longer than " + timeout);
            }
            consumer.poll(Duration.ofMillis(200)).forEach(record -> sink.accept(record));
        }
        consumer.unsubscribe();
    }

    private static String header(ConsumerRecord<String, byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    /** Terminal events per request id, in topic order. */
    public Map<String, List<Terminal>> terminals() {
        return terminals;
    }

    /** Requests with events (chunks or terminals) from more than one attempt: a run was cut short and redone. */
    public long requestsRerun() {
        return attempts.values().stream().filter(a -> a.size() > 1).count();
    }

    /** Records on the dispatch topics per request id and dispatch attempt (a re-placement is the next attempt). */
    public Map<String, Map<Integer, Integer>> dispatchRecords() {
        return dispatchRecords;
    }

    /** When each of a request's dispatch records was written (record timestamps), per request id. */
    public Map<String, List<Long>> dispatchWrittenAtMs() {
        return dispatchWrittenAtMs;
    }

    public List<Dispatch> dispatchDecisions() {
        return dispatchDecisions;
    }

    public List<DeadLetter> deadLetters() {
        return deadLetters;
    }

    /** Records on the audited topics that did not decode (there should be none: bad input stops at the router). */
    public long undecodable() {
        return undecodable;
    }
}
