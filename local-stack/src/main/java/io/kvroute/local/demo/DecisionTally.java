package io.kvroute.local.demo;

import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.RoutingDecision;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Follows the decisions topic and counts requests dispatched per region, for live progress. */
final class DecisionTally implements AutoCloseable {
    private final Map<String, AtomicInteger> dispatchedByRegion = new ConcurrentHashMap<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    /** @param clientSettings bootstrap servers, and security settings of a principal that may read decisions */
    DecisionTally(Map<String, Object> clientSettings, String registryUrl, KvrouteTopics topics) {
        Map<String, Object> settings = new HashMap<>(clientSettings);
        settings.put("isolation.level", "read_committed");
        settings.put("enable.auto.commit", "false");
        KafkaConsumer<String, RoutingDecision> consumer = new KafkaConsumer<>(settings,
                new StringDeserializer(), Serdes.forRegistryUrl(registryUrl).valueSerde(RoutingDecision.class).deserializer());
        String topic = topics.decisions().name();
        thread = new Thread(() -> {
            try (consumer) {
                var partitions = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                while (running.get()) {
                    for (ConsumerRecord<String, RoutingDecision> record : consumer.poll(Duration.ofMillis(200))) {
                        RoutingDecision decision = record.value();
                        if (decision != null && decision.getOutcome() == DecisionOutcome.DISPATCHED && decision.getRegion() != null) {
                            dispatchedByRegion.computeIfAbsent(decision.getRegion(), r -> new AtomicInteger()).incrementAndGet();
                        }
                    }
                }
            }
        }, "demo-decision-tally");
        thread.setDaemon(true);
        thread.start();
    }

    Map<String, Integer> dispatchedByRegion() {
        Map<String, Integer> copy = new TreeMap<>();
        dispatchedByRegion.forEach((region, count) -> copy.put(region, count.get()));
        return copy;
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        thread.join(5_000);
    }
}
