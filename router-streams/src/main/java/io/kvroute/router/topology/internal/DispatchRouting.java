package io.kvroute.router.topology.internal;

import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.DispatchedRequest;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.processor.TopicNameExtractor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Sends a dispatched request to its region's dispatch topic, on the partition the router chose. */
public final class DispatchRouting {
    private static final Logger LOG = LoggerFactory.getLogger(DispatchRouting.class);

    private DispatchRouting() {
    }

    public static TopicNameExtractor<String, DispatchedRequest> topicOf(KvrouteTopics topics) {
        return (key, value, context) -> topics.dispatchTopic(value.getRegion());
    }

    /** Writes dispatch records with {@code plain}, reusing a routed request's encoded body where it can ({@link DispatchSerializer}). */
    public static Serializer<DispatchedRequest> serializer(Serializer<DispatchedRequest> plain) {
        return new DispatchSerializer(plain);
    }

    public static StreamPartitioner<String, DispatchedRequest> partitioner() {
        return new StreamPartitioner<>() {
            @Override
            public Optional<Set<Integer>> partitions(String topic, String key, DispatchedRequest value, int numPartitions) {
                int partition = value.getPartition();
                if (partition < 0 || partition >= numPartitions) {
                    // telemetry named a slot the topic does not have; stay within the topic rather than fail
                    LOG.warn("request {} placed on partition {} of {} which has {} partitions; using {}", key, partition,
                            topic, numPartitions, Math.floorMod(partition, numPartitions));
                    partition = Math.floorMod(partition, numPartitions);
                }
                return Optional.of(Set.of(partition));
            }
        };
    }
}
