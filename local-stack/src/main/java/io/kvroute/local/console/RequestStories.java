package io.kvroute.local.console;

import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.CancelHeaders;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.topics.ResponseHeaders;
import io.kvroute.schemas.topics.RunAttempt;
import io.kvroute.schemas.v1.CancelRequest;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.RoutingDecision;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Utils;

/**
 * One request's story, read on demand: its request record, decisions, dispatch records, cancel and
 * re-placement markers and response events, in time order. Keyed topics are read only in the
 * partition the id hashes to, dispatch topics only in the GPU partitions its decisions chose, and
 * only records newer than the lookback; a fresh group-less {@code read_committed} consumer per
 * story, closed after. The prompt is never part of the story (see {@link RecordViews#request}),
 * and response chunks are counted, never shown.
 */
final class RequestStories {
    static final int MAX_ID_LENGTH = 256;
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(10);
    // dispatch records are written in the transaction that wrote the decision: a little before decidedAtMs is enough
    private static final long DISPATCH_SLACK_MS = 60_000;

    private final ClientConfig config;
    private final KvrouteTopics topics;
    private final Clock clock;
    private final Duration lookback;
    private final Duration timeout;
    private final Deserializer<InferenceRequest> requests;
    private final Deserializer<RoutingDecision> decisions;
    private final Deserializer<DispatchedRequest> dispatches;
    private final Deserializer<CancelRequest> cancels;
    private final Deserializer<ResponseEvent> responses;

    RequestStories(ClientConfig config, Serdes serdes, Clock clock, Duration lookback, Duration timeout) {
        this.config = config;
        this.topics = config.topics();
        this.clock = clock;
        this.lookback = lookback;
        this.timeout = timeout;
        this.requests = serdes.valueSerde(InferenceRequest.class).deserializer();
        this.decisions = serdes.valueSerde(RoutingDecision.class).deserializer();
        this.dispatches = serdes.valueSerde(DispatchedRequest.class).deserializer();
        this.cancels = serdes.valueSerde(CancelRequest.class).deserializer();
        this.responses = serdes.valueSerde(ResponseEvent.class).deserializer();
    }

    /** What is known of one request. */
    private final class Story {
        final String requestId;
        final List<Map<String, Object>> timeline = new ArrayList<>();
        final List<Map<String, Object>> decisionViews = new ArrayList<>();
        final List<RoutingDecision> decisionRecords = new ArrayList<>();
        final List<Map<String, Object>> dispatchViews = new ArrayList<>();
        final Map<Integer, Attempt> attempts = new TreeMap<>();
        Map<String, Object> request;
        long scanned;
        boolean complete = true;
        int undecodable;

        Story(String requestId) {
            this.requestId = requestId;
        }

        void add(ConsumerRecord<String, byte[]> record) {
            String topic = record.topic();
            try {
                if (topic.equals(topics.requests().name())) {
                    InferenceRequest r = requests.deserialize(topic, record.value());
                    request = RecordViews.request(r);
                    event(record, r.getSubmittedAtMs(), "submitted", "tenant " + r.getTenant() + ", model " + r.getModel() + ", "
                            + r.getPromptTokenEstimate() + " prompt tokens (est.), " + r.getPrefixBlockHashes().size()
                            + " prefix blocks, max " + r.getMaxTokens() + " new tokens", null);
                } else if (topic.equals(topics.decisions().name())) {
                    RoutingDecision d = decisions.deserialize(topic, record.value());
                    decisionRecords.add(d);
                    Map<String, Object> view = RecordViews.decision(d);
                    decisionViews.add(view);
                    String where = d.getOutcome() == DecisionOutcome.DISPATCHED
                            ? " to " + d.getWorkerId() + " (" + d.getRegion() + " slot " + d.getPartition() + ")" : "";
                    event(record, d.getDecidedAtMs(), "decision", "attempt " + d.getAttempt() + ": " + d.getOutcome() + where + " by "
                            + d.getPolicy() + ", " + d.getMatchedPrefixBlocks() + "/" + d.getPromptBlocks() + " prefix blocks matched; "
                            + d.getReason(), view);
                } else if (topic.equals(topics.cancellations().name())) {
                    if (record.value() == null) {
                        return;
                    }
                    CancelRequest c = cancels.deserialize(topic, record.value());
                    boolean supersede = c.getSupersedesBelowAttempt() != null || CancelHeaders.isSupersede(record.headers());
                    event(record, c.getRequestedAtMs(), supersede ? "re-placement" : "cancel", supersede
                            ? "dispatch attempts below " + c.getSupersedesBelowAttempt() + " void" + reason(c.getReason())
                            : "cancel asked" + reason(c.getReason()), null);
                } else if (topic.equals(topics.responses().name())) {
                    ResponseEvent e = responses.deserialize(topic, record.value());
                    Attempt attempt = attempts.computeIfAbsent(e.getAttempt(), Attempt::new);
                    attempt.add(e, ResponseHeaders.isChunk(record.headers()));
                    if (e.getTerminal() != null) {
                        Map<String, Object> terminal = RecordViews.terminal(e.getTerminal());
                        String where = e.getTerminal().getWorkerId() == null ? "" : " on " + e.getTerminal().getWorkerId();
                        event(record, e.getProducedAtMs(), "terminal", e.getTerminal().getStatus() + where + " (dispatch attempt "
                                + RunAttempt.dispatchAttemptOf(e.getAttempt()) + ", run " + e.getAttempt() + "), "
                                + e.getTerminal().getUsage().getPromptTokens() + " prompt / " + e.getTerminal().getUsage().getCompletionTokens()
                                + " completion / " + e.getTerminal().getUsage().getCachedTokens() + " cached tokens"
                                + (e.getDuplicate() ? ", duplicate" : ""), terminal);
                    }
                } else {
                    DispatchedRequest d = dispatches.deserialize(topic, record.value());
                    Map<String, Object> view = new LinkedHashMap<>();
                    view.put("attempt", d.getAttempt());
                    view.put("region", d.getRegion());
                    view.put("partition", d.getPartition());
                    view.put("workerId", d.getWorkerId());
                    view.put("policy", d.getPolicy());
                    view.put("topic", topic);
                    view.put("offset", record.offset());
                    view.put("decidedAtMs", d.getDecidedAtMs());
                    dispatchViews.add(view);
                    event(record, record.timestamp(), "dispatch", "attempt " + d.getAttempt() + " written to " + topic + " slot "
                            + d.getPartition() + " for " + d.getWorkerId(), view);
                }
            } catch (RuntimeException e) {
                undecodable++;
                event(record, record.timestamp(), "undecodable", "a record this console cannot decode: " + e.getClass().getSimpleName(), null);
            }
        }

        private void event(ConsumerRecord<?, ?> record, long atMs, String kind, String text, Map<String, Object> detail) {
            Map<String, Object> event = new LinkedHashMap<>();
            event.put("atMs", atMs);
            event.put("kind", kind);
            event.put("topic", record.topic());
            event.put("partition", record.partition());
            event.put("offset", record.offset());
            event.put("text", text);
            if (detail != null) {
                event.put("detail", detail);
            }
            timeline.add(event);
        }

        Map<String, Object> view() {
            List<Map<String, Object>> attemptViews = new ArrayList<>();
            Map<String, Object> finalTerminal = null;
            for (Attempt a : attempts.values()) {
                attemptViews.add(a.view());
                if (a.terminal != null) {
                    finalTerminal = a.terminal;
                }
            }
            for (Attempt a : attempts.values()) {
                if (a.chunks > 0) {
                    Map<String, Object> event = new LinkedHashMap<>();
                    event.put("atMs", a.firstChunkAtMs);
                    event.put("kind", "chunks");
                    event.put("topic", topics.responses().name());
                    event.put("text", a.chunks + " chunk(s) streamed by dispatch attempt " + RunAttempt.dispatchAttemptOf(a.attempt) + " (run " + a.attempt + ") over "
                            + (a.lastChunkAtMs - a.firstChunkAtMs) + " ms");
                    timeline.add(event);
                }
            }
            timeline.sort(Comparator.comparingLong((Map<String, Object> e) -> (Long) e.get("atMs")).thenComparingInt(e -> order((String) e.get("kind"))));
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("requestId", requestId);
            out.put("found", !timeline.isEmpty());
            out.put("complete", complete);
            out.put("lookbackMs", lookback.toMillis());
            out.put("scannedRecords", scanned);
            out.put("undecodable", undecodable);
            out.put("request", request);
            out.put("decisions", decisionViews);
            out.put("dispatches", dispatchViews);
            out.put("attempts", attemptViews);
            out.put("terminal", finalTerminal);
            out.put("timeline", timeline);
            return out;
        }
    }

    private static int order(String kind) {
        return switch (kind) {
            case "submitted" -> 0;
            case "decision" -> 1;
            case "re-placement" -> 2;
            case "dispatch" -> 3;
            case "chunks" -> 4;
            case "terminal" -> 5;
            default -> 6;
        };
    }

    private static final class Attempt {
        final int attempt;
        int chunks;
        long firstChunkAtMs = Long.MAX_VALUE;
        long lastChunkAtMs;
        int retries;
        String handedBack;
        Map<String, Object> terminal;

        Attempt(int attempt) {
            this.attempt = attempt;
        }

        void add(ResponseEvent e, boolean markedChunk) {
            if (e.getTerminal() != null) {
                terminal = RecordViews.terminal(e.getTerminal());
                terminal.put("duplicate", e.getDuplicate());
            } else if (markedChunk || e.getTextDelta() != null) {
                chunks++;
                firstChunkAtMs = Math.min(firstChunkAtMs, e.getProducedAtMs());
                lastChunkAtMs = Math.max(lastChunkAtMs, e.getProducedAtMs());
            }
            retries = Math.max(retries, e.getRetry());
            if (e.getHandedBack() != null) {
                handedBack = e.getHandedBack();
            }
        }

        Map<String, Object> view() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("runAttempt", attempt);
            m.put("dispatchAttempt", RunAttempt.dispatchAttemptOf(attempt));
            m.put("chunks", chunks);
            m.put("firstChunkAtMs", chunks == 0 ? null : firstChunkAtMs);
            m.put("lastChunkAtMs", chunks == 0 ? null : lastChunkAtMs);
            m.put("retries", retries);
            m.put("handedBack", handedBack);
            m.put("terminal", terminal);
            return m;
        }
    }

    private static String reason(String reason) {
        return reason == null || reason.isEmpty() ? "" : " (" + reason + ")";
    }

    /** Reads one request's story; {@code requestId} must be 1-{@value #MAX_ID_LENGTH} characters. */
    Map<String, Object> read(String requestId) {
        if (requestId == null || requestId.isEmpty() || requestId.length() > MAX_ID_LENGTH) {
            throw new IllegalArgumentException("a request id is 1-" + MAX_ID_LENGTH + " characters");
        }
        Story story = new Story(requestId);
        long deadline = clock.millis() + timeout.toMillis();
        long since = clock.millis() - lookback.toMillis();
        KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config.readerConfig("console-story"), new StringDeserializer(),
                new ByteArrayDeserializer());
        try {
            List<TopicPartition> keyed = new ArrayList<>();
            for (String topic : List.of(topics.requests().name(), topics.decisions().name(), topics.cancellations().name(),
                    topics.responses().name())) {
                TopicPartition tp = partitionForKey(consumer, topic, requestId);
                if (tp != null) {
                    keyed.add(tp);
                }
            }
            Map<TopicPartition, Long> starts = new HashMap<>();
            keyed.forEach(tp -> starts.put(tp, since));
            story.complete &= readAll(consumer, starts, requestId, story, deadline);

            Map<TopicPartition, Long> dispatchStarts = new HashMap<>();
            for (RoutingDecision d : story.decisionRecords) {
                if (d.getOutcome() == DecisionOutcome.DISPATCHED && d.getRegion() != null && d.getPartition() != null) {
                    try {
                        TopicPartition tp = new TopicPartition(topics.dispatchTopic(d.getRegion()), d.getPartition());
                        dispatchStarts.merge(tp, Math.max(since, d.getDecidedAtMs() - DISPATCH_SLACK_MS), Math::min);
                    } catch (IllegalArgumentException e) {
                        // a region name this build cannot make a topic of: the decision still shows
                    }
                }
            }
            if (!dispatchStarts.isEmpty()) {
                story.complete &= readAll(consumer, dispatchStarts, requestId, story, deadline);
            }
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(2)));
        }
        return story.view();
    }

    /** Reads the partitions from the given times to their end now, keeping the records keyed {@code key}; false if the deadline cut it short. */
    private boolean readAll(KafkaConsumer<String, byte[]> consumer, Map<TopicPartition, Long> startTimes, String key, Story story, long deadline) {
        List<TopicPartition> partitions = List.copyOf(startTimes.keySet());
        consumer.assign(partitions);
        Map<TopicPartition, OffsetAndTimestamp> starts = consumer.offsetsForTimes(startTimes, METADATA_TIMEOUT);
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, METADATA_TIMEOUT);
        Set<TopicPartition> open = new LinkedHashSet<>();
        for (TopicPartition tp : partitions) {
            OffsetAndTimestamp start = starts.get(tp);
            long from = start == null ? ends.get(tp) : start.offset();
            consumer.seek(tp, from);
            if (from < ends.get(tp)) {
                open.add(tp);
            }
        }
        while (!open.isEmpty()) {
            if (clock.millis() > deadline) {
                return false;
            }
            for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
                TopicPartition tp = new TopicPartition(record.topic(), record.partition());
                if (!open.contains(tp)) {
                    continue;
                }
                story.scanned++;
                if (key.equals(record.key()) && record.offset() < ends.get(tp)) {
                    story.add(record);
                }
            }
            open.removeIf(tp -> consumer.position(tp, METADATA_TIMEOUT) >= ends.get(tp));
        }
        return true;
    }

    private static TopicPartition partitionForKey(KafkaConsumer<?, ?> consumer, String topic, String key) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, METADATA_TIMEOUT);
        if (infos == null || infos.isEmpty()) {
            return null;
        }
        int partition = Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % infos.size();
        return new TopicPartition(topic, partition);
    }
}
