package io.kvroute.ingress.it;

import static org.awaitility.Awaitility.await;

import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.platform.kafka.TopicCreator;
import io.kvroute.platform.testing.TestKafka;
import io.kvroute.platform.testing.TestRegistry;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.KvrouteTopics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;

/** The real broker and registry, with a fresh set of kvroute topics under a unique prefix. */
final class IngressStack {
    final String bootstrapServers;
    final String registryUrl;
    final String prefix;
    final KvrouteTopics topics;
    final Serdes serdes;

    IngressStack() {
        this.bootstrapServers = TestKafka.bootstrapServers();
        this.registryUrl = TestRegistry.url();
        this.prefix = "it-" + UUID.randomUUID().toString().substring(0, 8);
        this.topics = new KvrouteTopics(prefix, KvrouteTopics.DEFAULT_PARTITIONS);
        try (Admin admin = Admin.create(Map.<String, Object>of("bootstrap.servers", bootstrapServers))) {
            TopicCreator creator = new TopicCreator(admin, (short) 1);
            // TopicCreator describes the topics right after creating them and can race the metadata
            // propagation (UnknownTopicOrPartition); ensure() is idempotent, so retry it
            await().atMost(Duration.ofSeconds(30)).ignoreExceptionsInstanceOf(IllegalStateException.class)
                    .until(() -> {
                        creator.ensure(topics.all(Map.of()));
                        return true;
                    });
        }
        this.serdes = Serdes.forRegistryUrl(registryUrl);
    }

    ClientConfig clientConfig() {
        return ClientConfig.of(Map.of(
                ClientConfig.BOOTSTRAP_SERVERS, bootstrapServers,
                ClientConfig.SCHEMA_REGISTRY_URL, registryUrl,
                ClientConfig.TOPIC_PREFIX, prefix,
                "kafka.linger.ms", "5"));
    }

    List<String> connectionArgs() {
        return List.of("--bootstrap-servers", bootstrapServers, "--registry-url", registryUrl, "--topic-prefix", prefix);
    }
}
