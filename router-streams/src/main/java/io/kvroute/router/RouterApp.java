package io.kvroute.router;

import io.kvroute.platform.config.Settings;
import io.kvroute.platform.metrics.PrometheusEndpoint;
import io.kvroute.router.config.ProducerBatchSize;
import io.kvroute.router.config.RouterConfig;
import io.kvroute.router.errors.ProducerGlobalDeadLetters;
import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.router.peers.PeerDecisionFollower;
import io.kvroute.router.routing.PeerPlacements;
import io.kvroute.router.topology.RouterTopology;
import io.kvroute.router.topology.internal.KafkaRequestReader;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Properties;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import io.kvroute.platform.kafka.TopicCreator;
import io.kvroute.schemas.topics.TopicSpec;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.RoutingDecision;
import io.kvroute.schemas.registry.SchemaRegistryException;
import io.micrometer.core.instrument.FunctionCounter;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router process: validates its configuration, checks that the kvroute topics exist (the
 * launcher creates them), creates its own admission topics when tenants have quotas, builds the topology, starts Kafka Streams and, if
 * {@code router.metrics.port >= 0}, an endpoint serving {@code /metrics} and the probes {@code /health/live} and
 * {@code /health/ready} ({@link RouterHealth}). Never wipes local state on start.
 *
 * <pre>
 * java -cp ... io.kvroute.router.RouterApp [--config FILE] [key=value ...]
 * </pre>
 * Settings are layered: defaults, then the file, then {@code KVROUTE_*} environment variables,
 * then {@code key=value} arguments.
 */
public final class RouterApp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RouterApp.class);
    private static final Duration TOPIC_CHECK_TIMEOUT = Duration.ofSeconds(30);
    /**
     * How long a missing topic is looked for again before start-up fails: a topic just created, or an ACL just
     * granted, can take a moment to reach the broker that answers (listing hides topics the principal may not see).
     */
    private static final Duration TOPIC_APPEAR_GRACE = Duration.ofSeconds(10);
    private static final long ADMISSION_RETENTION_MS = 7L * 86_400_000;
    /**
     * Other instances' placements waiting for the routing thread, which drains them at each decision
     * and every parked-retry interval: 10 s of 1,000 decisions a second.
     */
    private static final int PEER_INBOX_CAPACITY = 10_000;

    private final RouterConfig config;
    private final KafkaStreams streams;
    private final KafkaStreamsMetrics streamsMetrics;
    private final PrometheusEndpoint endpoint;
    private final ProducerGlobalDeadLetters globalDeadLetters;
    private final KafkaRequestReader requestReader;
    private final String instance;
    private final PeerPlacements peers;
    private final Object stateMonitor = new Object();
    private volatile PeerDecisionFollower peerFollower;

    private RouterApp(RouterConfig config, KafkaStreams streams, KafkaStreamsMetrics streamsMetrics, PrometheusEndpoint endpoint,
                      ProducerGlobalDeadLetters globalDeadLetters, KafkaRequestReader requestReader, String instance,
                      PeerPlacements peers) {
        this.requestReader = requestReader;
        this.instance = instance;
        this.peers = peers;
        this.config = config;
        this.streams = streams;
        this.streamsMetrics = streamsMetrics;
        this.endpoint = endpoint;
        this.globalDeadLetters = globalDeadLetters;
    }

    /** Validates {@code settings}, checks the topics and starts the router; returns once started (not yet RUNNING). */
    public static RouterApp start(Settings settings) {
        RouterConfig config = RouterConfig.from(settings);
        int writtenPartitions = checkTopicsExist(config);
        if (config.quotasEnabled()) {
            ensureAdmissionTopics(config);
        }
        PrometheusMeterRegistry registry = PrometheusEndpoint.newRegistry();
        RouterMetrics metrics = new RouterMetrics(registry);
        Serdes serdes = new Serdes(config.serdeConfig());
        ProducerGlobalDeadLetters globalDeadLetters = new ProducerGlobalDeadLetters(config.adminConfig(),
                config.topics().deadLetters().name(), config.applicationId() + "-global-dlq");
        // one id per process: its decision records say which instance made them, and it skips its own
        String instance = UUID.randomUUID().toString();
        PeerPlacements peers = new PeerPlacements(PEER_INBOX_CAPACITY);
        FunctionCounter.builder("kvroute.router.peer.placements.followed", peers, PeerPlacements::followed)
                .description("other router instances' placements this one accounted as its own").register(registry);
        FunctionCounter.builder("kvroute.router.peer.placements.dropped", peers, PeerPlacements::dropped)
                .description("other instances' placements dropped because the routing thread fell behind").register(registry);
        KafkaRequestReader requestReader = new KafkaRequestReader(config.adminConfig(),
                serdes.valueSerde(InferenceRequest.class).deserializer(), config.applicationId() + "-request-reader-" + instance);
        Properties streamsProperties = config.streamsProperties();
        ProducerBatchSize.apply(streamsProperties, writtenPartitions);
        KafkaStreams streams = new KafkaStreams(RouterTopology.build(config, serdes, metrics, globalDeadLetters, peers, instance,
                requestReader), streamsProperties);
        KafkaStreamsMetrics streamsMetrics = new KafkaStreamsMetrics(streams);
        streamsMetrics.bindTo(registry);
        PrometheusEndpoint endpoint;
        try {
            endpoint = config.metricsPort() >= 0 ? PrometheusEndpoint.start(config.metricsHost(), config.metricsPort(), registry,
                    RouterHealth.of(streams::state)) : null;
        } catch (RuntimeException e) {
            streamsMetrics.close();
            streams.close(Duration.ZERO);
            globalDeadLetters.close();
            requestReader.close();
            throw e;
        }
        RouterApp app = new RouterApp(config, streams, streamsMetrics, endpoint, globalDeadLetters, requestReader, instance, peers);
        streams.setStateListener((newState, oldState) -> {
            LOG.info("router {} state {} -> {}", config.applicationId(), oldState, newState);
            synchronized (app.stateMonitor) {
                app.stateMonitor.notifyAll();
            }
        });
        streams.setUncaughtExceptionHandler(e -> {
            if (SchemaRegistryException.isConfigurationError(e)) {
                // a new thread would meet the same refusal: stop, and say why, instead of retrying for ever
                LOG.error("router stopping: the schema registry refuses it ({}): {}", RouterConfig.SCHEMA_REGISTRY_URL,
                        rootMessage(e));
                return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
            }
            LOG.error("router stream thread failed; replacing it", e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        try {
            streams.start();
            app.peerFollower = PeerDecisionFollower.start(config.adminConfig(),
                    serdes.valueSerde(RoutingDecision.class).deserializer(), config.topics().decisions().name(), instance, peers);
        } catch (RuntimeException e) {
            app.close();
            throw e;
        }
        LOG.info("router {} started: policy {}, regions {}, topics prefix {}, metrics port {}", config.applicationId(),
                config.policy(), config.regions(), config.topics().prefix(), app.metricsPort());
        return app;
    }

    /** Fails start-up naming a missing topic; returns how many partitions the router writes, about (for its batch size). */
    private static int checkTopicsExist(RouterConfig config) {
        KvrouteTopics topics = config.topics();
        List<String> required = new ArrayList<>(List.of(topics.requests().name(), topics.workerTelemetry().name(),
                topics.kvEvents().name(), topics.decisions().name(), topics.responses().name(), topics.deadLetters().name(),
                topics.cancellations().name()));
        config.regions().forEach(region -> required.add(topics.dispatchTopic(region)));
        try (Admin admin = Admin.create(config.adminConfig())) {
            List<String> missing = missingTopics(admin, required);
            if (missing.contains(topics.requests().name())) {
                throw new IllegalStateException("the requests topic " + topics.requests().name() + " does not exist on "
                        + config.bootstrapServers() + ": create the kvroute topics first (the launcher does), or check "
                        + RouterConfig.TOPIC_PREFIX + " = " + topics.prefix());
            }
            if (!missing.isEmpty()) {
                throw new IllegalStateException("kvroute topics missing on " + config.bootstrapServers() + ": " + missing
                        + "; create them first (the launcher does), or check " + RouterConfig.REGIONS + " = " + config.regions());
            }
            List<String> written = new ArrayList<>(List.of(topics.requests().name(), topics.decisions().name(), topics.responses().name()));
            config.regions().forEach(region -> written.add(topics.dispatchTopic(region)));
            int partitions = 0;
            for (TopicDescription topic : admin.describeTopics(written).allTopicNames()
                    .get(TOPIC_CHECK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).values()) {
                partitions += topic.partitions().size();
            }
            // the requests topic's partitions stand for the changelogs of the router's stores, one more per store
            return partitions + 2 * topics.requests().partitions();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot list topics on " + config.bootstrapServers() + " within "
                    + TOPIC_CHECK_TIMEOUT.toSeconds() + " s: is the broker reachable? " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking the kvroute topics", e);
        }
    }

    /** The required topics the admin client does not list, looked for again until they appear or the grace passes. */
    private static List<String> missingTopics(Admin admin, List<String> required)
            throws ExecutionException, TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + TOPIC_APPEAR_GRACE.toNanos();
        for (int attempt = 0; ; attempt++) {
            Set<String> existing = admin.listTopics().names().get(TOPIC_CHECK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            List<String> missing = required.stream().filter(t -> !existing.contains(t)).toList();
            if (missing.isEmpty() || System.nanoTime() - deadline >= 0) {
                return missing;
            }
            if (attempt == 0) {
                LOG.info("waiting up to {} s for kvroute topics {} to appear", TOPIC_APPEAR_GRACE.toSeconds(), missing);
            }
            Thread.sleep(500);
        }
    }

    /**
     * Creates the router's own admission topics (tenant quotas are configured): as many partitions as
     * the responses topic, since routing reads the admitted one next to it, and the requests topic's
     * replication. An existing admitted topic with another partition count is an error.
     */
    private static void ensureAdmissionTopics(RouterConfig config) {
        String responses = config.topics().responses().name();
        try (Admin admin = Admin.create(config.adminConfig())) {
            Map<String, TopicDescription> described = admin.describeTopics(List.of(responses, config.topics().requests().name()))
                    .allTopicNames().get(TOPIC_CHECK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            int partitions = described.get(responses).partitions().size();
            short replication = (short) described.get(config.topics().requests().name()).partitions().get(0).replicas().size();
            Map<String, String> topicConfigs = Map.of("cleanup.policy", "delete", "retention.ms", Long.toString(ADMISSION_RETENTION_MS));
            new TopicCreator(admin, replication).ensure(List.of(
                    new TopicSpec<>(config.admissionTopic(), byte[].class, "tenant", partitions, topicConfigs),
                    new TopicSpec<>(config.admittedTopic(), InferenceRequest.class, "requestId", partitions, topicConfigs)));
            int admitted = admin.describeTopics(List.of(config.admittedTopic())).allTopicNames()
                    .get(TOPIC_CHECK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(config.admittedTopic()).partitions().size();
            if (admitted != partitions) {
                throw new IllegalStateException("topic " + config.admittedTopic() + " has " + admitted + " partitions but "
                        + responses + " has " + partitions + "; they must match (delete it and let the router create it)");
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create the router's admission topics on " + config.bootstrapServers() + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating the router's admission topics", e);
        }
    }

    public RouterConfig config() {
        return config;
    }

    /** This process's router instance id, in its decision records. */
    public String instance() {
        return instance;
    }

    /** Other instances' placements queued for and followed by this one. */
    public PeerPlacements peers() {
        return peers;
    }

    /** Waits until this instance reads the other instances' new decisions; false if the timeout passed first. */
    public boolean awaitFollowingPeers(Duration timeout) throws InterruptedException {
        PeerDecisionFollower follower = peerFollower;
        return follower != null && follower.awaitPositioned(timeout);
    }

    public KafkaStreams.State state() {
        return streams.state();
    }

    /** Waits until the router is RUNNING; false if the timeout passes or it failed first. */
    public boolean awaitRunning(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (stateMonitor) {
            while (true) {
                KafkaStreams.State state = streams.state();
                if (state == KafkaStreams.State.RUNNING) {
                    return true;
                }
                if (state == KafkaStreams.State.ERROR || state == KafkaStreams.State.NOT_RUNNING
                        || state == KafkaStreams.State.PENDING_SHUTDOWN || state == KafkaStreams.State.PENDING_ERROR) {
                    return false;
                }
                long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (leftMs <= 0) {
                    return false;
                }
                try {
                    stateMonitor.wait(Math.min(leftMs, 100));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
    }

    /** The port serving Prometheus metrics, or null when disabled. */
    public Integer metricsPort() {
        return endpoint == null ? null : endpoint.port();
    }

    public MeterRegistry meterRegistry() {
        return endpoint == null ? null : endpoint.registry();
    }

    /** Leaves the consumer group (so a restart does not wait out the session timeout) and stops. */
    @Override
    public void close() {
        if (peerFollower != null) {
            peerFollower.close();
        }
        boolean clean = streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(Duration.ofMillis(config.closeTimeoutMs())));
        if (!clean) {
            LOG.warn("router {} did not close within {} ms", config.applicationId(), config.closeTimeoutMs());
        }
        streamsMetrics.close();
        globalDeadLetters.close();
        requestReader.close();
        if (endpoint != null) {
            endpoint.close();
        }
    }

    /** Layers defaults, the {@code --config} file, {@code KVROUTE_*} environment variables and {@code key=value} arguments. */
    public static Settings settingsFrom(String[] args, Map<String, String> env) {
        Path file = null;
        Map<String, String> overrides = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--config")) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("--config needs a file path");
                }
                file = Path.of(args[++i]);
            } else if (arg.startsWith("--config=")) {
                file = Path.of(arg.substring("--config=".length()));
            } else if (arg.contains("=")) {
                int eq = arg.indexOf('=');
                overrides.put(arg.substring(0, eq).trim(), arg.substring(eq + 1).trim());
            } else {
                throw new IllegalArgumentException("unexpected argument '" + arg + "': use --config FILE or key=value");
            }
        }
        return Settings.builder()
                .defaults(RouterConfig.defaults())
                .file(file)
                .environment(env, "bootstrap.", "schema.", "basic.auth.", "bearer.auth.", "kvroute.", "router.", "kafka.", "auto.")
                .overrides(overrides)
                .build();
    }

    public static void main(String[] args) throws InterruptedException {
        RouterApp app;
        try {
            app = start(settingsFrom(args, System.getenv()));
        } catch (IllegalArgumentException | IllegalStateException e) {
            System.err.println("kvroute router: " + e.getMessage());
            System.exit(2);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            app.close();
            stopped.countDown();
        }, "kvroute-router-shutdown"));
        while (!stopped.await(1, TimeUnit.SECONDS)) {
            if (app.state() == KafkaStreams.State.ERROR) {
                LOG.error("router is in state ERROR; exiting");
                System.exit(1);
            }
        }
    }

    private static String rootMessage(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SchemaRegistryException) {
                return t.getMessage();
            }
        }
        return String.valueOf(e.getMessage());
    }
}
