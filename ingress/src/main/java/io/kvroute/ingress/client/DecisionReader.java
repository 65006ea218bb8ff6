package io.kvroute.ingress.client;

import io.kvroute.ingress.client.internal.TopicReader;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.v1.RoutingDecision;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Reads the router's {@link RoutingDecision}s from {@code <prefix>.decisions}: everything on the
 * topic, the decisions of one request (every attempt; only the partition its id hashes to is
 * read), or a live follow until {@link #stop()}. One read at a time per instance.
 */
public final class DecisionReader {
    private static final Duration POLL = Duration.ofMillis(200);

    private final ClientConfig config;
    private final Clock clock;
    private final Serdes serdes;
    private volatile boolean stopped;
    private volatile TopicReader<RoutingDecision> current;

    public DecisionReader(ClientConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
        this.serdes = new Serdes(config.serdeConfig());
    }

    /** Every decision on the topic when the call starts, in partition order. */
    public List<RoutingDecision> readAll(Duration timeout) {
        return readToEnd(null, d -> true, timeout);
    }

    /** The decisions of one request, oldest first (several when it was re-dispatched). */
    public List<RoutingDecision> forRequest(String requestId, Duration timeout) {
        return readToEnd(requestId, d -> d.getRequestId().equals(requestId), timeout);
    }

    /**
     * Hands every decision matching {@code filter} to {@code sink}, from {@code start} on, until
     * {@link #stop()} is called (from any thread).
     */
    public void follow(StartPosition start, Predicate<RoutingDecision> filter, Consumer<RoutingDecision> sink) {
        try (TopicReader<RoutingDecision> reader = open()) {
            reader.openAll(start);
            while (!stopped) {
                reader.poll(POLL, (record, decision) -> {
                    if (filter.test(decision)) {
                        sink.accept(decision);
                    }
                });
            }
        } catch (WakeupException e) {
            if (!stopped) {
                throw e;
            }
        } finally {
            current = null;
        }
    }

    public void stop() {
        stopped = true;
        TopicReader<RoutingDecision> reader = current;
        if (reader != null) {
            reader.wakeup();
        }
    }

    private List<RoutingDecision> readToEnd(String key, Predicate<RoutingDecision> filter, Duration timeout) {
        List<RoutingDecision> out = new ArrayList<>();
        long deadline = clock.millis() + timeout.toMillis();
        try (TopicReader<RoutingDecision> reader = open()) {
            if (key == null) {
                reader.openAll(StartPosition.BEGINNING);
            } else {
                reader.openForKey(key, StartPosition.BEGINNING);
            }
            Map<TopicPartition, Long> ends = reader.endOffsets();
            while (!stopped && !reader.reached(ends) && clock.millis() < deadline) {
                reader.poll(POLL, (record, decision) -> {
                    if (filter.test(decision)) {
                        out.add(decision);
                    }
                });
            }
        } finally {
            current = null;
        }
        return out;
    }

    private TopicReader<RoutingDecision> open() {
        TopicReader<RoutingDecision> reader = new TopicReader<>(config.readerConfig("decisions"),
                config.topics().decisions().name(), serdes.valueSerde(RoutingDecision.class).deserializer());
        current = reader;
        return reader;
    }
}
