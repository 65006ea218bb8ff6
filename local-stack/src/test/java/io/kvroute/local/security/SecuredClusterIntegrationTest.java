package io.kvroute.local.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.ingress.client.Completion;
import io.kvroute.ingress.client.KvrouteClient;
import io.kvroute.ingress.client.SubmitRequest;
import io.kvroute.local.cli.KvrouteCommand;
import io.kvroute.local.stack.KvrouteServices;
import io.kvroute.local.stack.LocalKafkaBroker;
import io.kvroute.local.stack.SecuredDeployment;
import io.kvroute.platform.config.Settings;
import io.kvroute.platform.kafka.TopicCreator;
import io.kvroute.platform.testing.TestRegistry;
import io.kvroute.router.RouterApp;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.worker.WorkerApp;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.metadata.UserScramCredentialRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.metadata.bootstrap.BootstrapMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * kvroute on a cluster as production runs one: SASL on every listener, Kafka's authorizer denying what no ACL allows,
 * topics per tenant, and each role (router, worker, two tenants) its own SCRAM-SHA-512 principal, created when the
 * storage is formatted, with exactly the ACLs {@code kvroute acls} applies. A tenant's request is served end to end; what a role may not do is refused by the
 * broker; a tenant cannot read another's results or submit in its name.
 */
class SecuredClusterIntegrationTest {
    private static final String REGION = "us-east";
    private static final KvrouteTopics TOPICS = new KvrouteTopics("kvroute", KvrouteTopics.DEFAULT_PARTITIONS);
    private static final Map<String, String> PASSWORDS = Map.of("router", secret(), "gpu-east", secret(), "acme", secret(),
            "globex", secret());
    private static final Map<String, String> PER_TENANT = Map.of("kvroute.tenant.topics", "per-tenant");
    private static final String ADMIN_PASSWORD = secret();

    @TempDir
    static Path dir;
    private static LocalKafkaBroker broker;
    private static RouterApp router;
    private static WorkerApp worker;
    private static String aclsOutput;

    @BeforeAll
    static void startSecuredStack() throws Exception {
        broker = new LocalKafkaBroker(dir.resolve("kafka"), "512m").secured(new LocalKafkaBroker.BrokerAdmin("admin", ADMIN_PASSWORD))
                .withScramUsers(PASSWORDS).start();
        assertThat(broker.clientTlsSettings().values()).as("what every client is given holds nothing of the administrator's")
                .doesNotContain(ADMIN_PASSWORD);
        try (Admin admin = Admin.create(broker.adminClientSettings())) {
            new TopicCreator(admin, (short) 1).ensure(TOPICS.all(Map.of(REGION, 1)));
            new TopicCreator(admin, (short) 1).ensure(TOPICS.ofTenant("acme"));
            new TopicCreator(admin, (short) 1).ensure(TOPICS.ofTenant("globex"));
        }
        Path adminProperties = dir.resolve("admin.properties");
        writeProperties(adminProperties, broker.adminClientSettings());
        aclsOutput = runCli("acls", "--bootstrap-servers", broker.bootstrapServers(), "--command-config", adminProperties.toString(),
                "--tenant-topics", "per-tenant", "--tenant", "User:acme", "--tenant", "User:globex", "--router", "User:router",
                "--worker", "User:gpu-east=" + REGION + "/" + REGION + "-0", "--apply");

        KvrouteServices local = new KvrouteServices(broker.bootstrapServers(), TestRegistry.url(), TOPICS, FleetSpec.parse(REGION + "=1@2"),
                "kvroute", dir.resolve("state"), Map.of("worker.sim.speed", "4", "kvroute.tenant.topics", "per-tenant"));
        router = RouterApp.start(as("router", local.routerSettings()));
        worker = WorkerApp.start(as("gpu-east", local.workerSettings(FleetSpec.parse(REGION + "=1@2").regions().get(0), 0)));
        assertThat(router.awaitRunning(Duration.ofSeconds(60))).as("the router runs as User:router with its ACLs only").isTrue();
    }

    @AfterAll
    static void stop() {
        if (worker != null) {
            worker.close();
        }
        if (router != null) {
            router.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void shouldAuthenticateTheUsersCreatedAtFormatAndNoOther() throws Exception {
        Path checkpoint = dir.resolve("kafka/data/__cluster_metadata-0/00000000000000000000-0000000000.checkpoint");
        List<String> formatted = BootstrapMetadata.fromCheckpointFile(checkpoint).records().stream()
                .filter(r -> r.message() instanceof UserScramCredentialRecord).map(r -> ((UserScramCredentialRecord) r.message()).name())
                .toList();
        assertThat(formatted).as("SCRAM users in the metadata the storage was formatted with").containsExactlyInAnyOrderElementsOf(PASSWORDS.keySet());
        Map<String, Object> acmeSettings = kafkaSettings("acme");
        acmeSettings.remove("default.api.timeout.ms"); // below an admin client's request timeout
        try (Admin acme = Admin.create(acmeSettings)) {
            assertThat(acme.describeCluster().clusterId().get(15, TimeUnit.SECONDS)).isNotBlank();
        }
        Map<String, Object> stranger = kafkaSettings("acme");
        stranger.put("sasl.jaas.config", jaas("mallory", secret()));
        assertThatThrownBy(() -> readOne(stranger, TOPICS.responses().name())).as("a user not created at format")
                .isInstanceOf(org.apache.kafka.common.errors.SaslAuthenticationException.class);
        try (var files = Files.list(dir.resolve("kafka"))) {
            assertThat(files.map(f -> f.getFileName().toString())).as("the storage tool's arguments file is gone")
                    .noneMatch(name -> name.endsWith(".args"));
        }
        Path formatLog = dir.resolve("kafka/format.log");
        assertThat(Files.getPosixFilePermissions(formatLog)).containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ,
                PosixFilePermission.OWNER_WRITE);
        assertThat(Files.readString(formatLog)).doesNotContain(PASSWORDS.values().toArray(String[]::new));
    }

    @Test
    void shouldServeATenantWhoseEveryClientAuthenticatesWithScram() throws Exception {
        assertThat(aclsOutput).contains("ACL(s) created").contains("User:acme").doesNotContain(PASSWORDS.get("acme"));
        try (KvrouteClient client = KvrouteClient.create(ClientConfig.of(clientSettings("acme")))) {
            Completion completion = client.submit(SubmitRequest.builder().customId("secured-1").model(KvrouteServices.MODEL)
                    .prompt("Say hello to the secured cluster.").maxTokens(8).build()).get(2, TimeUnit.MINUTES);
            assertThat(completion.status()).as(String.valueOf(completion.error())).isEqualTo(ResponseStatus.COMPLETED);
            assertThat(completion.usage().completionTokens()).isPositive();
        }
    }

    @Test
    void shouldRejectARequestThatNamesAnotherTenantThanItsTopics() throws Exception {
        try (KvrouteClient client = KvrouteClient.create(ClientConfig.of(clientSettings("acme")))) {
            Completion completion = client.submit(SubmitRequest.builder().customId("as-globex").tenant("globex")
                    .model(KvrouteServices.MODEL).prompt("Bill this to someone else.").maxTokens(8).build()).get(2, TimeUnit.MINUTES);
            assertThat(completion.status()).isEqualTo(ResponseStatus.REJECTED);
            assertThat(completion.error()).contains("tenant_mismatch");
        }
    }

    @Test
    void shouldApplyATenantsCancelToItsOwnRequestOnly() throws Exception {
        String shared = "shared-id-" + UUID.randomUUID();
        String own = "own-id-" + UUID.randomUUID();
        try (KvrouteClient acme = KvrouteClient.create(ClientConfig.of(clientSettings("acme")));
             KvrouteClient globex = KvrouteClient.create(ClientConfig.of(clientSettings("globex")))) {
            globex.cancel(shared, "cancels an id that turns out to be acme's");
            acme.cancel(own, "changed its mind");
            awaitPassedOn(2);
            Thread.sleep(3_000); // the router's global store and the worker's follower read them moments after they are committed

            Completion notGlobexs = acme.submit(SubmitRequest.builder().requestId(shared).model(KvrouteServices.MODEL)
                    .prompt("Mine, not globex's.").maxTokens(8).build()).get(2, TimeUnit.MINUTES);
            Completion cancelled = acme.submit(SubmitRequest.builder().requestId(own).model(KvrouteServices.MODEL)
                    .prompt("Never mind.").maxTokens(8).build()).get(2, TimeUnit.MINUTES);

            assertThat(notGlobexs.status()).as("globex's cancel of the id does not stop acme's request").isEqualTo(ResponseStatus.COMPLETED);
            assertThat(cancelled.status()).as("acme's own cancel does").isEqualTo(ResponseStatus.CANCELLED);
        }
    }

    /** Waits until the router has passed this test's tenants' cancels on to the cancellations topic (read as the admin). */
    private static void awaitPassedOn(int cancels) {
        Map<String, Object> admin = new HashMap<>(broker.adminClientSettings());
        admin.put("isolation.level", "read_committed");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(admin, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(TOPICS.cancellations().name()).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            int seen = 0;
            long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (seen < cancels && System.nanoTime() < until) {
                seen += consumer.poll(Duration.ofMillis(200)).count();
            }
            assertThat(seen).as("cancels passed on by the router").isGreaterThanOrEqualTo(cancels);
        }
    }

    @Test
    void shouldReportATenantsUsageFromItsOwnResultsOnly() throws Exception {
        for (String tenant : List.of("acme", "globex")) {
            try (KvrouteClient client = KvrouteClient.create(ClientConfig.of(clientSettings(tenant)))) {
                assertThat(client.submit(SubmitRequest.builder().model(KvrouteServices.MODEL).prompt("Count my tokens, " + tenant + ".")
                        .maxTokens(8).build()).get(2, TimeUnit.MINUTES).status()).isEqualTo(ResponseStatus.COMPLETED);
            }
        }
        Path acme = dir.resolve("acme.properties");
        Map<String, Object> settings = new HashMap<>(clientSettings("acme"));
        writeProperties(acme, settings);

        String report = runCli("usage", "--config", acme.toString(), "--region-profiles", REGION + "@2:0.25", "--timeout", "30s");

        assertThat(report).contains("usage from " + TOPICS.responsesOf("acme").name()).contains("acme").contains(KvrouteServices.MODEL)
                .doesNotContain("globex");
    }

    @Test
    void shouldKeepEachTenantToItsOwnTopics() {
        Map<String, Object> globex = kafkaSettings("globex");
        assertThatThrownBy(() -> readOne(globex, TOPICS.responsesOf("acme").name())).as("globex reads acme's results")
                .isInstanceOf(TopicAuthorizationException.class);
        assertThatThrownBy(() -> writeOne(globex, TOPICS.requestsOf("acme").name())).as("globex submits on acme's topic")
                .isInstanceOf(TopicAuthorizationException.class);
        assertThatThrownBy(() -> writeOne(globex, TOPICS.cancellations().name())).as("a tenant writes the cancellations the workers follow")
                .isInstanceOf(TopicAuthorizationException.class);
        assertThatThrownBy(() -> readOne(globex, TOPICS.responses().name())).as("the shared responses topic")
                .isInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void shouldRefuseATenantTheDecisionsTelemetryAndDispatchTopics() {
        Map<String, Object> tenant = kafkaSettings("acme");
        for (String topic : List.of(TOPICS.decisions().name(), TOPICS.workerTelemetry().name(), TOPICS.dispatchTopic(REGION))) {
            assertThatThrownBy(() -> readOne(tenant, topic)).as("a tenant reads " + topic).isInstanceOf(TopicAuthorizationException.class);
        }
        assertThatThrownBy(() -> writeOne(tenant, TOPICS.dispatchTopic(REGION)))
                .as("a tenant writes a dispatch record").isInstanceOf(TopicAuthorizationException.class);
        assertThatThrownBy(() -> writeOne(tenant, TOPICS.workerTelemetry().name()))
                .as("a tenant writes telemetry").isInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void shouldRefuseAWorkerTheRequestsAndAnotherWorkersTransactionalId() {
        Map<String, Object> worker = kafkaSettings("gpu-east");
        assertThatThrownBy(() -> readOne(worker, TOPICS.requests().name())).isInstanceOf(TopicAuthorizationException.class);
        assertThatThrownBy(() -> writeOne(worker, TOPICS.requests().name())).isInstanceOf(TopicAuthorizationException.class);
        Map<String, Object> impostor = new HashMap<>(worker);
        impostor.put("transactional.id", TOPICS.prefix() + "-worker-" + REGION + "-1");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(impostor, new ByteArraySerializer(), new ByteArraySerializer())) {
            assertThatThrownBy(producer::initTransactions).as("a worker takes another worker's transactional id")
                    .isInstanceOf(org.apache.kafka.common.errors.TransactionalIdAuthorizationException.class);
        }
    }

    @Test
    void shouldRefuseAClientThatDoesNotTrustTheBrokersCertificate() {
        Map<String, Object> untrusting = kafkaSettings("acme");
        untrusting.keySet().removeIf(k -> k.startsWith("ssl.truststore"));
        assertThat(untrusting).containsEntry("security.protocol", "SASL_SSL");
        assertThatThrownBy(() -> readOne(untrusting, TOPICS.responsesOf("acme").name()))
                .isInstanceOf(org.apache.kafka.common.errors.SslAuthenticationException.class);
    }

    @Test
    void shouldRefuseAClientThatDoesNotAuthenticate() {
        Map<String, Object> wrong = kafkaSettings("acme");
        wrong.put("sasl.jaas.config", jaas("acme", "not-the-password"));
        assertThatThrownBy(() -> readOne(wrong, TOPICS.responses().name()))
                .isInstanceOf(org.apache.kafka.common.errors.SaslAuthenticationException.class);
    }

    private static Settings as(String user, Settings settings) {
        Map<String, String> values = new HashMap<>(settings.asMap());
        broker.clientTlsSettings().forEach((k, v) -> values.put("kafka." + k, String.valueOf(v)));
        values.put("kafka.sasl.mechanism", "SCRAM-SHA-512");
        values.put("kafka.sasl.jaas.config", jaas(user, PASSWORDS.get(user)));
        return Settings.of(values);
    }

    private static Map<String, String> clientSettings(String user) {
        Map<String, String> values = new HashMap<>();
        values.put(ClientConfig.BOOTSTRAP_SERVERS, broker.bootstrapServers());
        values.put(ClientConfig.SCHEMA_REGISTRY_URL, TestRegistry.url());
        values.put(ClientConfig.TOPIC_PREFIX, TOPICS.prefix());
        values.put(ClientConfig.TENANT, user);
        values.putAll(PER_TENANT);
        broker.clientTlsSettings().forEach((k, v) -> values.put("kafka." + k, String.valueOf(v)));
        values.put("kafka.sasl.mechanism", "SCRAM-SHA-512");
        values.put("kafka.sasl.jaas.config", jaas(user, PASSWORDS.get(user)));
        return values;
    }

    private static Map<String, Object> kafkaSettings(String user) {
        Map<String, Object> values = new HashMap<>();
        values.put("bootstrap.servers", broker.bootstrapServers());
        values.putAll(broker.clientTlsSettings());
        values.put("sasl.mechanism", "SCRAM-SHA-512");
        values.put("sasl.jaas.config", jaas(user, PASSWORDS.get(user)));
        values.put("max.block.ms", 15_000);
        values.put("default.api.timeout.ms", 15_000);
        return values;
    }

    private static void readOne(Map<String, Object> settings, String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            consumer.seekToBeginning(List.of(new TopicPartition(topic, 0)));
            long until = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            while (System.nanoTime() < until) {
                consumer.poll(Duration.ofMillis(200));
            }
        }
    }

    private static void writeOne(Map<String, Object> settings, String topic) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(settings, new ByteArraySerializer(), new ByteArraySerializer())) {
            try {
                producer.send(new ProducerRecord<>(topic, 0, null, "x".getBytes(StandardCharsets.UTF_8))).get(15, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException cause ? cause : new IllegalStateException(e.getCause());
            }
        }
    }

    private static String jaas(String user, String password) {
        return SecuredDeployment.scramJaas(user, password);
    }

    private static String runCli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream previous = System.out;
        int exit;
        try (PrintStream capture = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            System.setOut(capture);
            exit = new CommandLine(new KvrouteCommand()).execute(args);
        } finally {
            System.setOut(previous);
        }
        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(printed).isZero();
        return printed;
    }

    private static void writeProperties(Path file, Map<String, Object> settings) throws Exception {
        Properties p = new Properties();
        settings.forEach((k, v) -> p.setProperty(k, String.valueOf(v)));
        try (Writer out = Files.newBufferedWriter(file)) {
            p.store(out, null);
        }
    }

    private static String secret() {
        return UUID.randomUUID().toString();
    }
}
