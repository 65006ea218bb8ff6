package io.kvroute.platform.kafka;

import io.kvroute.schemas.topics.TopicSpec;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates kvroute's topics with their declared settings (the broker's auto-creation is off).
 * An existing topic is kept; one with fewer partitions than declared is an error, because a
 * region's dispatch partitions are its GPU slots.
 */
public final class TopicCreator {
    private static final Logger LOG = LoggerFactory.getLogger(TopicCreator.class);

    private final Admin admin;
    private final short replicationFactor;

    public TopicCreator(Admin admin, short replicationFactor) {
        this.admin = admin;
        this.replicationFactor = replicationFactor;
    }

    public void ensure(Collection<TopicSpec<?>> specs) {
        List<NewTopic> topics = specs.stream()
                .map(s -> new NewTopic(s.name(), Optional.of(s.partitions()), Optional.of(replicationFactor)).configs(s.configs()))
                .toList();
        admin.createTopics(topics).values().forEach((name, future) -> {
            try {
                future.get(30, TimeUnit.SECONDS);
                LOG.info("created topic {}", name);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new IllegalStateException("cannot create topic " + name + ": " + e.getCause(), e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted creating topic " + name, e);
            } catch (TimeoutException e) {
                throw new IllegalStateException("timed out creating topic " + name + ": is the broker reachable?", e);
            }
        });
        checkPartitions(specs);
    }

    private void checkPartitions(Collection<TopicSpec<?>> specs) {
        Map<String, TopicDescription> described = describe(specs);
        for (TopicSpec<?> spec : specs) {
            int actual = described.get(spec.name()).partitions().size();
            if (actual < spec.partitions()) {
                throw new IllegalStateException("topic " + spec.name() + " has " + actual + " partitions but "
                        + spec.partitions() + " are configured; add partitions or lower the setting");
            }
        }
    }

    /** Describes the topics, waiting out the moment after creation when their metadata has not spread yet. */
    private Map<String, TopicDescription> describe(Collection<TopicSpec<?>> specs) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return admin.describeTopics(specs.stream().map(TopicSpec::name).toList()).allTopicNames().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                    throw new IllegalStateException("cannot describe kvroute topics: " + e.getCause(), e.getCause());
                }
            } catch (TimeoutException e) {
                throw new IllegalStateException("timed out describing kvroute topics: is the broker reachable?", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted describing topics", e);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted describing topics", e);
            }
        }
    }
}
