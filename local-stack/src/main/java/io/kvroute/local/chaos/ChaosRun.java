package io.kvroute.local.chaos;

import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.ingress.client.Completion;
import io.kvroute.ingress.client.KvrouteClient;
import io.kvroute.ingress.client.SubmitRequest;
import io.kvroute.local.stack.HangingTransactionWatch;
import io.kvroute.local.stack.KvrouteServices;
import io.kvroute.local.stack.LocalKafkaBroker;
import io.kvroute.local.stack.ServiceProcesses;
import io.kvroute.platform.registry.ApicurioRegistry;
import io.kvroute.router.config.RouterConfig;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.ResponseStatus;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One chaos run: a real broker and registry, the router instance(s) and workers as child JVMs,
 * a seeded workload sent through the client library with poison records among it, faults
 * injected on a seeded schedule while it runs, then an audit of the topics.
 */
public final class ChaosRun {
    /**
     * @param faults how many faults of each kind to inject while the workload is being sent
     * @param ratePerSecond mean arrival rate of the workload (Poisson)
     * @param drainTimeout how long to wait for results once every record is sent and every fault has recovered
     * @param settings extra settings for the router and the workers
     * @param brokers Kafka brokers: one (combined with the controller), or more with a controller of their own and replicated topics
     */
    public record Options(int requests, Map<FaultKind, Integer> faults, double poisonFraction, long seed, FleetSpec fleet,
                          String policy, int routerInstances, double ratePerSecond, FaultInjector.Timings timings,
                          Duration drainTimeout, Path workDir, Map<String, String> settings, int brokers) {
    }

    /**
     * Failure detection tuned for a run of minutes: a dead member is noticed in 6 s instead of
     * Kafka's 45 s, and a silent region's queued work is re-placed after 8 s instead of 30 s.
     */
    static final Map<String, String> FAST_FAILOVER = Map.of(
            "kafka.session.timeout.ms", "6000",
            "kafka.heartbeat.interval.ms", "1000",
            "router.replace.patience.ms", "8000",
            "worker.replacement.check.after.ms", "3000");

    /** Beyond the producers' 10 s transaction timeout, before an open transaction counts as hanging. */
    private static final Duration TRANSACTION_GRACE = Duration.ofSeconds(10);
    private static final Duration TRANSACTION_SWEEP_EVERY = Duration.ofSeconds(5);

    private final Options options;
    private final PrintStream progress;
    /** What runs beside the stack once it is up, given its bootstrap servers and registry URL (the console, say). */
    private BiFunction<String, String, AutoCloseable> alongside = (bootstrap, registry) -> () -> { };

    public ChaosRun(Options options, PrintStream progress) {
        this.options = options;
        this.progress = progress;
    }

    /** Starts {@code start} beside the stack once its processes run, and closes what it returns when the run ends. */
    public ChaosRun alongside(BiFunction<String, String, AutoCloseable> start) {
        this.alongside = start;
        return this;
    }

    public ChaosReport run() throws Exception {
        long startedNs = System.nanoTime();
        KvrouteTopics topics = KvrouteTopics.defaults();
        Map<String, String> settings = new HashMap<>(FAST_FAILOVER);
        settings.putAll(options.settings());
        progress.printf("kvroute chaos: starting Kafka (KRaft, %d broker(s)), a schema registry, %d router instance(s) and %d workers as "
                + "separate processes...%n", options.brokers(), options.routerInstances(), options.fleet().totalGpus());
        try (LocalKafkaBroker broker = new LocalKafkaBroker(options.workDir().resolve("kafka"), "512m", options.brokers()).start();
             ApicurioRegistry registry = ApicurioRegistry.start(options.workDir().resolve("registry"))) {
            KvrouteServices services = new KvrouteServices(broker.bootstrapServers(), registry.url(), topics, options.fleet(),
                    options.policy(), options.workDir(), settings);
            services.createTopics(broker.replicationFactor());
            long telemetryTtlMs = Long.parseLong(services.routerSettings().string(RouterConfig.TELEMETRY_TTL_MS,
                    Long.toString(RouterConfig.DEFAULT_TELEMETRY_TTL_MS)));
            try (ServiceProcesses processes = new ServiceProcesses(services, options.fleet(), topics, broker.bootstrapServers(),
                    options.routerInstances(), options.workDir()).start(Duration.ofMinutes(3));
                 AutoCloseable beside = alongside.apply(broker.bootstrapServers(), registry.url())) {
                List<ChaosWorkload.Item> items = ChaosWorkload.generate(options.requests(), options.ratePerSecond(),
                        options.poisonFraction(), options.seed());
                Map<String, ResponseStatus> clientResults = new HashMap<>();
                List<InjectedFault> injected;
                List<String> restarted;
                List<String> abortedTransactions;
                try (HangingTransactionWatch transactions = new HangingTransactionWatch(broker.bootstrapServers(), TRANSACTION_GRACE)
                        .start(TRANSACTION_SWEEP_EVERY);
                     FaultInjector injector = new FaultInjector(processes, broker, options.timings(), options.seed(), System::currentTimeMillis)) {
                    long sendMs = items.isEmpty() ? 0 : items.get(items.size() - 1).atMs();
                    FaultPlan plan = FaultPlan.generate(options.faults(), sendMs / 10, sendMs * 8 / 10, options.seed());
                    sendAndDrain(broker.bootstrapServers(), registry.url(), topics, items, plan, injector, clientResults);
                    restarted = injector.restartedAfterExit();
                    transactions.close();
                    abortedTransactions = transactions.aborted();
                    injected = injector.finish();
                }
                progress.println("kvroute chaos: auditing the topics...");
                TopicAudit audit = TopicAudit.read(broker.bootstrapServers(), Serdes.forRegistryUrl(registry.url()), topics,
                        regions(options.fleet()), Duration.ofMinutes(2));
                List<SplitTransactions.Split> splits = SplitTransactions.read(broker.logFiles(), topics.prefix() + "-worker-");
                // a router's transactional ids are its application id (<prefix>-router) followed by its stream thread's
                List<SplitTransactions.Split> routerSplits = SplitTransactions.read(broker.logFiles(), topics.prefix() + "-router-");
                return ChaosReport.of(items, audit, injected, clientResults, splits, routerSplits, telemetryTtlMs,
                        (System.nanoTime() - startedNs) / 1e9)
                        .withOperatorActions(restarted, abortedTransactions);
            }
        }
    }

    private static List<String> regions(FleetSpec fleet) {
        return fleet.regions().stream().map(FleetSpec.Region::name).toList();
    }

    private void sendAndDrain(String bootstrap, String registryUrl, KvrouteTopics topics, List<ChaosWorkload.Item> items,
                              FaultPlan plan, FaultInjector injector, Map<String, ResponseStatus> clientResults)
            throws InterruptedException {
        ClientConfig clientConfig = ClientConfig.of(Map.of(
                ClientConfig.BOOTSTRAP_SERVERS, bootstrap,
                ClientConfig.SCHEMA_REGISTRY_URL, registryUrl,
                ClientConfig.TOPIC_PREFIX, topics.prefix(),
                ClientConfig.CLIENT_ID, "kvroute-chaos"));
        Map<String, Object> poisonProducerConfig = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.CLIENT_ID_CONFIG, "kvroute-chaos-poison");
        try (KvrouteClient client = KvrouteClient.create(clientConfig);
             KafkaProducer<String, byte[]> poisonProducer = new KafkaProducer<>(poisonProducerConfig, new StringSerializer(),
                     new ByteArraySerializer())) {
            Serializer<InferenceRequest> serializer = new Serdes(clientConfig.serdeConfig()).valueSerde(InferenceRequest.class).serializer();
            Map<String, CompletableFuture<Completion>> futures = new HashMap<>();
            long startNs = System.nanoTime();
            injector.schedule(plan);
            injector.superviseProcesses();
            long lastReportNs = startNs;
            for (ChaosWorkload.Item item : items) {
                long waitNs = startNs + TimeUnit.MILLISECONDS.toNanos(item.atMs()) - System.nanoTime();
                if (waitNs > 0) {
                    TimeUnit.NANOSECONDS.sleep(waitNs);
                }
                SubmitRequest submit = SubmitRequest.builder()
                        .requestId(item.requestId())
                        .tenant(item.tenant())
                        .model(KvrouteServices.MODEL)
                        .prompt(item.prompt())
                        .maxTokens(item.maxTokens())
                        .build();
                if (item.isPoison()) {
                    futures.put(item.requestId(), client.watch(item.requestId(), chunk -> { }));
                    byte[] valid = serializer.serialize(topics.requests().name(), client.prepare(submit));
                    poisonProducer.send(new ProducerRecord<>(topics.requests().name(), item.requestId(), item.poison().corrupt(valid)));
                } else {
                    futures.put(item.requestId(), client.submit(submit));
                }
                if (System.nanoTime() - lastReportNs > TimeUnit.SECONDS.toNanos(5)) {
                    lastReportNs = System.nanoTime();
                    printProgress(futures, items.size(), startNs);
                }
            }
            poisonProducer.flush();
            progress.printf("kvroute chaos: all %d records sent; waiting for faults to recover and results (drain timeout %d s)%n",
                    items.size(), options.drainTimeout().toSeconds());
            long lastFaultMs = plan.faults().isEmpty() ? 0 : plan.faults().get(plan.faults().size() - 1).atMs();
            long recoveryMs = Math.max(options.timings().restartDelay().toMillis(),
                    Math.max(options.timings().hang().toMillis(), options.timings().outage().toMillis()));
            long deadlineNs = startNs + TimeUnit.MILLISECONDS.toNanos(Math.max(lastFaultMs + recoveryMs, 0))
                    + options.drainTimeout().toNanos();
            deadlineNs = Math.max(deadlineNs, System.nanoTime() + options.drainTimeout().toNanos());
            while (futures.values().stream().anyMatch(f -> !f.isDone()) && System.nanoTime() < deadlineNs) {
                TimeUnit.SECONDS.sleep(1);
                if (System.nanoTime() - lastReportNs > TimeUnit.SECONDS.toNanos(5)) {
                    lastReportNs = System.nanoTime();
                    printProgress(futures, items.size(), startNs);
                }
            }
            printProgress(futures, items.size(), startNs);
            futures.forEach((id, future) -> {
                if (future.isDone() && !future.isCompletedExceptionally()) {
                    clientResults.put(id, future.join().status());
                }
            });
        }
    }

    private void printProgress(Map<String, CompletableFuture<Completion>> futures, int total, long startNs) {
        List<CompletableFuture<Completion>> all = new ArrayList<>(futures.values());
        long done = all.stream().filter(CompletableFuture::isDone).count();
        progress.printf("[%4ds] sent %d/%d  results %d  waiting %d%n", (System.nanoTime() - startNs) / 1_000_000_000,
                all.size(), total, done, all.size() - done);
    }
}
