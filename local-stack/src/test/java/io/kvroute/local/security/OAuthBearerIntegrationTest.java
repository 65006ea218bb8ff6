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
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kvroute process authenticating with SASL/OAUTHBEARER through the {@code kafka.*} pass-through: each gets a JWT
 * from an OIDC issuer (client credentials grant) and the broker checks it against the issuer's published key; the
 * principal is the token's {@code sub}, so the ACLs of {@link KvrouteAcls} apply to it. A tenant's request is served end
 * to end; a token signed by a key the broker does not know is refused, even one naming a principal with grants, and a
 * valid token of a principal without ACLs reaches nothing.
 */
class OAuthBearerIntegrationTest {
    private static final String REGION = "us-east";
    private static final String AUDIENCE = "kvroute-kafka";
    private static final KvrouteTopics TOPICS = new KvrouteTopics("kvroute", KvrouteTopics.DEFAULT_PARTITIONS);
    private static final String ALLOWED_URLS = "org.apache.kafka.sasl.oauthbearer.allowed.urls";

    @TempDir
    Path dir;

    @Test
    void shouldServeATenantWhoseProcessesAuthenticateWithOAuthBearerTokens() throws Exception {
        Map<String, String> secrets = Map.of("router", secret(), "gpu-east", secret(), "acme", secret(), "outsider", secret());
        String previousAllowed = System.getProperty(ALLOWED_URLS);
        try (LocalOidcIssuer issuer = new LocalOidcIssuer(AUDIENCE, Clock.systemUTC());
             LocalOidcIssuer forger = new LocalOidcIssuer(AUDIENCE, Clock.systemUTC())) {
            secrets.forEach(issuer::client);
            forger.claimingIssuer(issuer.url()).client("router", secrets.get("router"));
            // Kafka's clients fetch tokens only from URLs this JVM allows
            System.setProperty(ALLOWED_URLS, issuer.tokenUrl() + "," + forger.tokenUrl());
            try (LocalKafkaBroker broker = new LocalKafkaBroker(dir.resolve("kafka"), "512m")
                    .secured(new LocalKafkaBroker.BrokerAdmin("admin", secret()))
                    .withOAuthBearer(issuer.jwksUrl(), issuer.url(), AUDIENCE).start()) {
                OneTenantDeployment.provision(broker, TOPICS, REGION);
                FleetSpec fleet = FleetSpec.parse(REGION + "=1@2");
                KvrouteServices local = new KvrouteServices(broker.bootstrapServers(), TestRegistry.url(), TOPICS, fleet, "kvroute",
                        dir.resolve("state"), Map.of("worker.sim.speed", "4", "kvroute.tenant.topics", "per-tenant"));
                try (RouterApp router = RouterApp.start(as(oauth(broker, issuer, "router", secrets), local.routerSettings()));
                     WorkerApp worker = WorkerApp.start(as(oauth(broker, issuer, "gpu-east", secrets),
                             local.workerSettings(fleet.regions().get(0), 0)))) {
                    assertThat(router.awaitRunning(Duration.ofSeconds(60))).as("the router runs as the token's sub, User:router").isTrue();
                    Map<String, String> client = new HashMap<>();
                    client.put(ClientConfig.BOOTSTRAP_SERVERS, broker.bootstrapServers());
                    client.put(ClientConfig.SCHEMA_REGISTRY_URL, TestRegistry.url());
                    client.put(ClientConfig.TENANT, "acme");
                    client.put("kvroute.tenant.topics", "per-tenant");
                    oauth(broker, issuer, "acme", secrets).forEach((k, v) -> client.put("kafka." + k, v));
                    try (KvrouteClient acme = KvrouteClient.create(ClientConfig.of(client))) {
                        Completion completion = acme.submit(SubmitRequest.builder().model(KvrouteServices.MODEL)
                                .prompt("Hello over OAUTHBEARER.").maxTokens(8).build()).get(2, TimeUnit.MINUTES);
                        assertThat(completion.status()).as(String.valueOf(completion.error())).isEqualTo(ResponseStatus.COMPLETED);
                    }
                }
                String acmeResponses = TOPICS.responsesOf("acme").name();
                assertThatThrownBy(() -> poll(consumer(broker, forger, "router", secrets), TOPICS.decisions().name()))
                        .as("a token naming User:router signed by a key the broker does not know")
                        .isInstanceOf(SaslAuthenticationException.class);
                assertThatThrownBy(() -> poll(consumer(broker, issuer, "outsider", secrets), acmeResponses))
                        .as("a valid token of a principal without ACLs").isInstanceOf(TopicAuthorizationException.class);
            }
        } finally {
            if (previousAllowed == null) {
                System.clearProperty(ALLOWED_URLS);
            } else {
                System.setProperty(ALLOWED_URLS, previousAllowed);
            }
        }
    }

    /**
     * What a process sets to authenticate as {@code clientId} with OAUTHBEARER (each key under {@code kafka.} in its
     * properties): TLS to the broker, the token endpoint, its client id and secret.
     */
    private static Map<String, String> oauth(LocalKafkaBroker broker, LocalOidcIssuer issuer, String clientId, Map<String, String> secrets) {
        Map<String, String> settings = new HashMap<>();
        broker.clientTlsSettings().forEach((k, v) -> settings.put(k, String.valueOf(v)));
        settings.put("sasl.mechanism", "OAUTHBEARER");
        settings.put("sasl.jaas.config", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;");
        settings.put("sasl.login.callback.handler.class", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler");
        settings.put("sasl.oauthbearer.token.endpoint.url", issuer.tokenUrl());
        settings.put("sasl.oauthbearer.client.credentials.client.id", clientId);
        settings.put("sasl.oauthbearer.client.credentials.client.secret", secrets.get(clientId));
        return settings;
    }

    private static Settings as(Map<String, String> kafka, Settings settings) {
        Map<String, String> values = new HashMap<>(settings.asMap());
        kafka.forEach((k, v) -> values.put("kafka." + k, v));
        return Settings.of(values);
    }

    private static KafkaConsumer<byte[], byte[]> consumer(LocalKafkaBroker broker, LocalOidcIssuer issuer, String clientId,
                                                          Map<String, String> secrets) {
        Map<String, Object> settings = new HashMap<>(oauth(broker, issuer, clientId, secrets));
        settings.put("bootstrap.servers", broker.bootstrapServers());
        settings.put("default.api.timeout.ms", 15_000);
        return new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static void poll(KafkaConsumer<byte[], byte[]> consumer, String topic) {
        try (consumer) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (System.nanoTime() < until) {
                consumer.poll(Duration.ofMillis(200));
            }
        }
    }

    private static String secret() {
        return UUID.randomUUID().toString();
    }
}
