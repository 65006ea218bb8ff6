package io.kvroute.local.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.ingress.client.Completion;
import io.kvroute.ingress.client.KvrouteClient;
import io.kvroute.ingress.client.SubmitRequest;
import io.kvroute.local.stack.KvrouteServices;
import io.kvroute.local.stack.LocalKafkaBroker;
import io.kvroute.platform.config.Settings;
import io.kvroute.platform.kafka.acls.KvrouteAcls;
import io.kvroute.platform.testing.TestRegistry;
import io.kvroute.router.RouterApp;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.worker.WorkerApp;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kvroute process authenticating with a client certificate (mutual TLS) instead of SASL: the broker maps a
 * certificate's CN to the principal, the ACLs of {@link KvrouteAcls} apply to it, and a tenant's request is served
 * end to end through the same {@code kafka.*} pass-through; a certificate of a principal without ACLs is refused.
 */
class MutualTlsIntegrationTest {
    private static final String REGION = "us-east";
    private static final KvrouteTopics TOPICS = new KvrouteTopics("kvroute", KvrouteTopics.DEFAULT_PARTITIONS);

    @TempDir
    Path dir;

    @Test
    void shouldServeATenantWhoseProcessesAuthenticateWithCertificates() throws Exception {
        try (LocalKafkaBroker broker = new LocalKafkaBroker(dir.resolve("kafka"), "512m")
                .secured(new LocalKafkaBroker.BrokerAdmin("admin", UUID.randomUUID().toString()))
                .withClientCertificates(List.of("router", "gpu-east", "acme", "outsider")).start()) {
            OneTenantDeployment.provision(broker, TOPICS, REGION);
            FleetSpec fleet = FleetSpec.parse(REGION + "=1@2");
            KvrouteServices local = new KvrouteServices(broker.mutualTlsBootstrapServers(), TestRegistry.url(), TOPICS, fleet, "kvroute",
                    dir.resolve("state"), Map.of("worker.sim.speed", "4", "kvroute.tenant.topics", "per-tenant"));
            try (RouterApp router = RouterApp.start(as(broker, "router", local.routerSettings()));
                 WorkerApp worker = WorkerApp.start(as(broker, "gpu-east", local.workerSettings(fleet.regions().get(0), 0)))) {
                assertThat(router.awaitRunning(Duration.ofSeconds(60))).isTrue();
                Map<String, String> client = new HashMap<>();
                client.put(ClientConfig.BOOTSTRAP_SERVERS, broker.mutualTlsBootstrapServers());
                client.put(ClientConfig.SCHEMA_REGISTRY_URL, TestRegistry.url());
                client.put(ClientConfig.TENANT, "acme");
                client.put("kvroute.tenant.topics", "per-tenant");
                kafka(broker, "acme").forEach((k, v) -> client.put("kafka." + k, v));
                try (KvrouteClient acme = KvrouteClient.create(ClientConfig.of(client))) {
                    Completion completion = acme.submit(SubmitRequest.builder().model(KvrouteServices.MODEL).prompt("Hello over mTLS.")
                            .maxTokens(8).build()).get(2, TimeUnit.MINUTES);
                    assertThat(completion.status()).as(String.valueOf(completion.error())).isEqualTo(ResponseStatus.COMPLETED);
                }
            }
            Map<String, Object> outsider = broker.clientCertificateSettings("outsider");
            outsider.put("default.api.timeout.ms", 15_000);
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(outsider, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                TopicPartition acmes = new TopicPartition(TOPICS.responsesOf("acme").name(), 0);
                consumer.assign(List.of(acmes));
                consumer.seekToBeginning(List.of(acmes));
                assertThatThrownBy(() -> consumer.poll(Duration.ofSeconds(10))).as("a trusted certificate without ACLs")
                        .isInstanceOf(TopicAuthorizationException.class);
            }
        }
    }

    private static Settings as(LocalKafkaBroker broker, String user, Settings settings) {
        Map<String, String> values = new HashMap<>(settings.asMap());
        kafka(broker, user).forEach((k, v) -> values.put("kafka." + k, v));
        return Settings.of(values);
    }

    /** The certificate settings of {@code user}, less the bootstrap servers (each process takes those on their own). */
    private static Map<String, String> kafka(LocalKafkaBroker broker, String user) {
        Map<String, String> settings = new HashMap<>();
        broker.clientCertificateSettings(user).forEach((k, v) -> {
            if (!k.equals("bootstrap.servers")) {
                settings.put(k, String.valueOf(v));
            }
        });
        return settings;
    }
}
