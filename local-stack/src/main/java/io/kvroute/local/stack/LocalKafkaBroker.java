package io.kvroute.local.stack;

import io.kvroute.platform.process.ChildJvm;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;

/**
 * A real Kafka cluster in KRaft mode on 127.0.0.1, each node a child JVM run from this process's
 * own classpath ({@code kafka_2.13} is a dependency). With one broker (the local stack's default)
 * it is a single combined broker + controller; with more, a controller of its own and that many
 * brokers, topics replicated three ways (two ways with two brokers), two in sync with three or
 * more, so a broker can crash while the others keep every partition led and writable. Storage is formatted on first
 * start; a restart on the same directory keeps the data.
 *
 * <p>{@link #secured} makes it a cluster as production runs one: SASL over TLS for clients (SCRAM-SHA-512, or PLAIN
 * for the administrator the nodes also use among themselves; a certificate for 127.0.0.1 made at first start with the
 * JDK's keytool, {@link BrokerTls}), SASL on the controller listener, Kafka's KRaft authorizer, and no access without
 * an ACL except for the administrator (a super user). {@link #withScramUsers} writes SCRAM users into the metadata
 * when the storage is formatted, so they authenticate from the broker's first moment; {@link #withOAuthBearer} also
 * accepts OAuth tokens of one issuer. Who may authenticate and how is {@link BrokerSecurity}'s.
 */
public final class LocalKafkaBroker implements AutoCloseable {
    private static final int CONTROLLER_ONLY_ID = 100;
    /**
     * How long the broker holds a transactional write to a partition whose previous transaction's marker is still
     * being written, before answering CONCURRENT_TRANSACTIONS (Kafka's default: 100 ms). With transaction version 2
     * the write itself adds the partition; a router committing to a hundred dispatch partitions at once outlasted
     * 100 ms, and each refusal cost its producer a client-side retry 100 ms or more later, logged as a producer
     * error (about 500 a run of 50,000 requests at 1,000 GPUs, none with this).
     */
    static final long TXN_ADD_PARTITION_WAIT_MS = 1_000;

    private final Path dir;
    private final String heap;
    private final int controllerPort;
    private final List<Node> brokers = new ArrayList<>();
    private final Node controllerOnly;
    /** With {@link #secured}: who may authenticate and how, else null. */
    private BrokerSecurity security;
    /** With {@link #withClientCertificates}: the port of the mutual-TLS listener of the (single) broker, else 0. */
    private int mutualTlsPort;
    /** With {@link #withTransactionVersion}: the transaction protocol version the storage is formatted with, else 0 (Kafka's). */
    private int transactionVersion;

    public LocalKafkaBroker(Path dir, String heap) {
        this(dir, heap, 1);
    }

    public LocalKafkaBroker(Path dir, String heap, int brokerCount) {
        this(dir, heap, brokerCount, 0, 0);
    }

    /**
     * One node, broker and controller, listening on {@code brokerPort} and {@code controllerPort}
     * (0: any free port), so that a stack started again on the same directory keeps its address.
     */
    public LocalKafkaBroker(Path dir, String heap, int brokerPort, int controllerPort) {
        this(dir, heap, 1, brokerPort, controllerPort);
    }

    private LocalKafkaBroker(Path dir, String heap, int brokerCount, int firstBrokerPort, int requestedControllerPort) {
        if (brokerCount < 1) {
            throw new IllegalArgumentException("a Kafka cluster needs at least one broker, was " + brokerCount);
        }
        this.dir = dir.toAbsolutePath();
        this.heap = heap;
        this.controllerPort = requestedControllerPort > 0 ? requestedControllerPort : ChildJvm.freePort();
        for (int i = 1; i <= brokerCount; i++) {
            int port = i == 1 && firstBrokerPort > 0 ? firstBrokerPort : ChildJvm.freePort();
            brokers.add(new Node(i, port, brokerCount == 1 ? "broker,controller" : "broker"));
        }
        this.controllerOnly = brokerCount == 1 ? null : new Node(CONTROLLER_ONLY_ID, this.controllerPort, "controller");
    }

    /**
     * Requires authentication and ACLs, with {@code admin} as the super user (set before the first {@link #start()}):
     * clients then need {@link #adminClientSettings()} or SCRAM credentials the administrator created.
     */
    public LocalKafkaBroker secured(BrokerAdmin admin) {
        this.security = new BrokerSecurity(admin, new BrokerTls(dir.resolve("tls")));
        return this;
    }

    /**
     * Also listens for clients that authenticate with a certificate (mutual TLS) on a second port of the single broker:
     * a certificate for each of {@code users} is made (CN=user, trusted by the broker), and its principal is
     * {@code User:<CN>}. Call after {@link #secured} and before the first {@link #start()}.
     */
    public LocalKafkaBroker withClientCertificates(List<String> users) {
        if (security == null || brokers.size() != 1) {
            throw new IllegalStateException("client certificates need a secured single-broker cluster");
        }
        users.forEach(security.tls()::clientKeyStore);
        mutualTlsPort = ChildJvm.freePort();
        return this;
    }

    /**
     * SCRAM-SHA-512 users (name to password) created when the storage is formatted: Kafka's storage tool writes their
     * credentials into the bootstrap metadata, so they can authenticate as soon as the broker listens, with no
     * administrator step. The passwords reach the tool through an arguments file readable by this user only, deleted
     * once formatted, never a command line. On a directory formatted before, {@link #start()} upserts them as the
     * administrator instead. Call after {@link #secured} and before {@link #start()}.
     */
    public LocalKafkaBroker withScramUsers(Map<String, String> passwordsByUser) {
        if (security == null) {
            throw new IllegalStateException("SCRAM users need a secured cluster: call secured(...) first");
        }
        security.addScramUsers(passwordsByUser);
        return this;
    }

    /**
     * Also accepts SASL/OAUTHBEARER on the clients' listener: a client presents a JWT from an OAuth/OIDC issuer, which
     * the broker checks with Kafka's {@code OAuthBearerValidatorCallbackHandler}: signed by one of the issuer's keys
     * ({@code jwksUrl}, fetched over HTTP(S) and allowed by the broker JVM's
     * {@code org.apache.kafka.sasl.oauthbearer.allowed.urls}), not expired, its {@code iss} {@code issuer} and its
     * {@code aud} naming {@code audience}. The principal is the token's {@code sub}. Call after {@link #secured} and
     * before {@link #start()}.
     */
    public LocalKafkaBroker withOAuthBearer(String jwksUrl, String issuer, String audience) {
        if (security == null) {
            throw new IllegalStateException("OAUTHBEARER needs a secured cluster: call secured(...) first");
        }
        security.oauthBearer(jwksUrl, issuer, audience);
        return this;
    }

    /**
     * Formats the storage with Kafka's transaction protocol {@code version} (feature {@code transaction.version}: 2, Kafka 4's
     * default, adds a partition to a transaction when the broker takes its first write; 1 has the producer add it first).
     * Applies when the storage is first formatted. Call before {@link #start()}.
     */
    public LocalKafkaBroker withTransactionVersion(int version) {
        if (version < 1 || version > 2) {
            throw new IllegalArgumentException("transaction.version must be 1 or 2, was " + version);
        }
        this.transactionVersion = version;
        return this;
    }

    /** The bootstrap servers of the mutual-TLS listener ({@link #withClientCertificates}). */
    public String mutualTlsBootstrapServers() {
        return "127.0.0.1:" + mutualTlsPort;
    }

    /** The client settings of {@code user} authenticating with its certificate on the mutual-TLS listener. */
    public Map<String, Object> clientCertificateSettings(String user) {
        Map<String, Object> settings = new HashMap<>(security.tls().clientCertificate(user));
        settings.put("bootstrap.servers", mutualTlsBootstrapServers());
        return settings;
    }

    /**
     * What a client of a {@link #secured} cluster needs to trust it (security protocol and trust store); its own SASL
     * settings come on top. Empty for a plaintext cluster.
     */
    public Map<String, Object> clientTlsSettings() {
        return security != null ? security.clientTlsSettings() : new HashMap<>();
    }

    /** The administrator's SASL/PLAIN user and password; the password is never shown by {@link #toString()}. */
    public record BrokerAdmin(String user, String password) {
        public BrokerAdmin {
            if (!user.matches("[A-Za-z0-9_.-]+") || password.isEmpty() || password.contains("\"") || password.contains("\\")) {
                throw new IllegalArgumentException("the broker admin needs a plain user name and a password without quotes or backslashes");
            }
        }

        String jaas(boolean withUsers) {
            return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user + "\" password=\"" + password + "\""
                    + (withUsers ? " user_" + user + "=\"" + password + "\"" : "") + ";";
        }

        @Override
        public String toString() {
            return "BrokerAdmin[user=" + user + ", password=(hidden)]";
        }
    }

    /** Client settings of the cluster's administrator: bootstrap servers, and SASL/PLAIN when {@link #secured}. */
    public Map<String, Object> adminClientSettings() {
        if (security != null) {
            return security.adminClientSettings(bootstrapServers());
        }
        Map<String, Object> settings = new HashMap<>();
        settings.put("bootstrap.servers", bootstrapServers());
        return settings;
    }

    /** Each broker's own log (their transaction coordinators write there). */
    public List<Path> logFiles() {
        return brokers.stream().map(node -> dir.resolve(node.name() + ".log")).toList();
    }

    /** Starts every node that is not running. */
    public LocalKafkaBroker start() {
        try {
            Files.createDirectories(dir);
            String clusterId = clusterId();
            if (controllerOnly != null) {
                startNode(controllerOnly, clusterId, "256m");
            }
            for (Node broker : brokers) {
                startNode(broker, clusterId, heap);
            }
            if (security != null) {
                security.upsertScramUsersIfNotStored(bootstrapServers());
            }
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the Kafka directory " + dir, e);
        }
    }

    private void startNode(Node node, String clusterId, String maxHeap) throws IOException {
        if (node.process != null && node.process.isAlive()) {
            return;
        }
        Path config = writeConfig(node);
        if (!Files.exists(node.dataDir().resolve("meta.properties"))) {
            format(config, node, clusterId);
        }
        node.process = ChildJvm.start("kafka-" + node.name(), jvmArgs(maxHeap), ChildJvm.currentClasspath(),
                "kafka.Kafka", List.of(config.toString()), dir, dir.resolve(node.name() + ".log"));
        node.process.awaitReady(() -> ChildJvm.portOpen(node.port), Duration.ofSeconds(60));
    }

    private String clusterId() throws IOException {
        Path file = dir.resolve("cluster.id");
        if (!Files.exists(file)) {
            Files.writeString(file, Uuid.randomUuid().toString());
        }
        return Files.readString(file).trim();
    }

    private List<String> jvmArgs(String maxHeap) {
        List<String> args = new ArrayList<>(List.of("-Xmx" + maxHeap, "-Xms128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dlog4j2.configurationFile=" + writeLogConfig()));
        if (security != null) {
            args.addAll(security.jvmArgs());
        }
        return args;
    }

    private void format(Path config, Node node, String clusterId) throws IOException {
        List<String> args = new ArrayList<>(List.of("format", "-t", clusterId, "-c", config.toString()));
        if (transactionVersion > 0) {
            args.addAll(List.of("--feature", "transaction.version=" + transactionVersion));
        }
        Path log = dir.resolve("format.log");
        // the storage tool reads "@file" as more arguments: the SCRAM passwords stay off its command line
        Path scramArgs = dir.resolve(node.name() + "-scram.args");
        Optional<String> scram = security != null ? security.writeScramArguments(scramArgs) : Optional.empty();
        if (scram.isPresent()) {
            args.add(scram.get());
            if (!Files.exists(log)) { // the tool prints the users' salted keys
                BrokerTls.writeSecret(log, "");
            }
        }
        ChildJvm formatter = ChildJvm.start("kafka-storage-format", jvmArgs("256m"), ChildJvm.currentClasspath(),
                "kafka.tools.StorageTool", args, dir, log);
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (formatter.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted formatting Kafka storage", e);
        } finally {
            formatter.close();
            Files.deleteIfExists(scramArgs);
        }
        if (!Files.exists(node.dataDir().resolve("meta.properties"))) {
            throw new IllegalStateException("formatting " + node.dataDir() + " failed; see " + log);
        }
        if (scram.isPresent()) {
            security.scramUsersFormatted();
        }
    }

    private Path writeConfig(Node node) throws IOException {
        Properties p = new Properties();
        int controllerId = controllerOnly != null ? CONTROLLER_ONLY_ID : 1;
        p.setProperty("process.roles", node.roles);
        p.setProperty("node.id", Integer.toString(node.id));
        p.setProperty("controller.quorum.voters", controllerId + "@127.0.0.1:" + controllerPort);
        p.setProperty("controller.listener.names", "CONTROLLER");
        String protocol = security == null ? "PLAINTEXT" : "SASL_SSL";
        p.setProperty("listener.security.protocol.map", protocol + ":" + protocol + ",CONTROLLER:" + (security == null ? "PLAINTEXT" : "SASL_PLAINTEXT")
                + (mutualTlsPort > 0 ? ",MTLS:SSL" : ""));
        p.setProperty("log.dirs", node.dataDir().toString());
        if (security != null) {
            security.brokerSettings(p);
        }
        if (node.roles.equals("controller")) {
            p.setProperty("listeners", "CONTROLLER://127.0.0.1:" + controllerPort);
        } else {
            String mutualTls = mutualTlsPort > 0 ? ",MTLS://127.0.0.1:" + mutualTlsPort : "";
            p.setProperty("listeners", protocol + "://127.0.0.1:" + node.port + mutualTls
                    + (node.roles.contains("controller") ? ",CONTROLLER://127.0.0.1:" + controllerPort : ""));
            p.setProperty("advertised.listeners", protocol + "://127.0.0.1:" + node.port + mutualTls);
            if (mutualTlsPort > 0) {
                p.setProperty("listener.name.mtls.ssl.client.auth", "required");
                // the certificate's CN is the principal's name: CN=router, O=... is User:router
                p.setProperty("ssl.principal.mapping.rules", "RULE:^CN=([^,]+),.*$/$1/,DEFAULT");
            }
            p.setProperty("inter.broker.listener.name", protocol);
            int replicas = replicationFactor();
            // two in sync only when a third replica exists: with two brokers, one down must not stop writes
            int inSync = brokers.size() >= 3 ? 2 : 1;
            p.setProperty("auto.create.topics.enable", "false");
            p.setProperty("num.partitions", "1");
            p.setProperty("default.replication.factor", Integer.toString(replicas));
            p.setProperty("min.insync.replicas", Integer.toString(inSync));
            p.setProperty("offsets.topic.replication.factor", Integer.toString(replicas));
            p.setProperty("offsets.topic.num.partitions", "8");
            p.setProperty("transaction.state.log.replication.factor", Integer.toString(replicas));
            p.setProperty("transaction.state.log.min.isr", Integer.toString(inSync));
            p.setProperty("transaction.state.log.num.partitions", "8");
            p.setProperty("share.coordinator.state.topic.replication.factor", Integer.toString(replicas));
            p.setProperty("group.initial.rebalance.delay.ms", "0");
            p.setProperty("add.partitions.to.txn.retry.backoff.max.ms", Long.toString(TXN_ADD_PARTITION_WAIT_MS));
            p.setProperty("log.segment.bytes", "67108864");
            p.setProperty("log.retention.check.interval.ms", "60000");
        }
        Path file = dir.resolve(node.name() + ".properties");
        StringWriter text = new StringWriter();
        p.store(text, "kvroute local stack " + node.name());
        if (security != null) { // it holds the admin's password
            BrokerTls.writeSecret(file, text.toString());
        } else {
            Files.writeString(file, text.toString());
        }
        return file;
    }

    private String writeLogConfig() {
        Path file = dir.resolve("broker-log4j2.properties");
        try {
            Files.writeString(file, String.join("\n",
                    "rootLogger.level = WARN",
                    "rootLogger.appenderRef.out.ref = OUT",
                    "appender.out.type = Console",
                    "appender.out.name = OUT",
                    "appender.out.layout.type = PatternLayout",
                    "appender.out.layout.pattern = %d %p %c{1} %m%n",
                    // transactions and group offsets are what a crash leaves pending: log their recovery
                    "logger.txn.name = kafka.coordinator.transaction",
                    "logger.txn.level = INFO",
                    "logger.group.name = org.apache.kafka.coordinator.group",
                    "logger.group.level = INFO", ""));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file.toString();
    }

    public String bootstrapServers() {
        return brokers.stream().map(b -> "127.0.0.1:" + b.port).collect(Collectors.joining(","));
    }

    public int brokerCount() {
        return brokers.size();
    }

    /** Broker {@code index}'s (0-based) name, as in its log file: "broker" when it is the only one, else "broker-N". */
    public String brokerName(int index) {
        return brokers.get(index).name();
    }

    /** Topic replication factor the cluster is configured for: three, or as many as there are brokers. */
    public short replicationFactor() {
        return (short) Math.min(3, brokers.size());
    }

    /** Process ids of every node, for memory accounting. */
    public List<Long> pids() {
        List<Long> pids = new ArrayList<>();
        if (controllerOnly != null && controllerOnly.process != null) {
            pids.add(controllerOnly.process.pid());
        }
        brokers.stream().filter(b -> b.process != null).forEach(b -> pids.add(b.process.pid()));
        return pids;
    }

    /** Stops broker {@code index} (0-based) abruptly (a crash); {@link #start()} brings it back on the same port and data. */
    public long kill(int index) {
        Node broker = brokers.get(index);
        long pid = broker.process.pid();
        broker.process.kill();
        return pid;
    }

    @Override
    public void close() {
        brokers.forEach(Node::close);
        if (controllerOnly != null) {
            controllerOnly.close();
        }
    }

    private final class Node {
        final int id;
        final int port;
        final String roles;
        ChildJvm process;

        Node(int id, int port, String roles) {
            this.id = id;
            this.port = port;
            this.roles = roles;
        }

        /** "broker" when it is the only one (its files keep the names they always had), else "broker-N" or "controller". */
        String name() {
            if (roles.equals("controller")) {
                return "controller";
            }
            return brokers.size() == 1 ? "broker" : "broker-" + id;
        }

        Path dataDir() {
            return dir.resolve(brokers.size() == 1 ? "data" : name() + "-data");
        }

        void close() {
            if (process != null) {
                process.close();
            }
        }
    }
}
