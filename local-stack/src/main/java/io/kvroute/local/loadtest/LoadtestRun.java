package io.kvroute.local.loadtest;

import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.bench.trace.MooncakeTrace;
import io.kvroute.local.stack.KvrouteServices;
import io.kvroute.local.stack.LocalFleet;
import io.kvroute.local.stack.LocalKafkaBroker;
import io.kvroute.local.stack.ServiceProcess;
import io.kvroute.local.stack.ServiceProcesses;
import io.kvroute.platform.registry.ApicurioRegistry;
import io.kvroute.router.RouterApp;
import io.kvroute.router.config.RouterConfig;
import io.kvroute.router.topology.internal.TopologyNames;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.RoutingDecision;
import io.kvroute.schemas.v1.WorkerTelemetry;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One {@code kvroute loadtest} run: a broker and registry (its own, or given), telemetry of idle
 * fake workers, the requests pre-loaded (or offered at a fixed rate), a plain exactly-once copy
 * app over the same records, then the router instance(s) as child JVMs, each phase measured by a
 * read_committed watch; what the routing wrote is read back per topic at the end.
 */
public final class LoadtestRun {
    /**
     * @param workers GPU slots, each a worker to the router
     * @param gpusPerWorker GPU slots per worker process, which share its one dispatch partition
     * @param ratePerSecond 0: pre-load every request before the routers start; else offer them at this rate to running routers
     * @param bootstrapServers null: start a broker and registry of its own
     * @param copyPartitions partitions of the copy app's sink topic
     * @param settings extra router settings, key=value
     * @param warmupSeconds with a rate, the requests offered in the first this many seconds are not in the latency figures
     * @param preloadWarmup pre-loaded, this many more requests go first: copied and routed, never measured
     * @param transactionVersion the run's own broker is formatted with this transaction protocol version; 0: Kafka's default
     */
    public record Options(int requests, int workers, int gpusPerWorker, int routers, String policy, double ratePerSecond, String bootstrapServers,
                          String registryUrl, short replicationFactor, Path workDir, int blockTokens, boolean copy, int copyPartitions,
                          Map<String, String> settings, Duration stallTimeout, Path trace, String commandLine, double warmupSeconds,
                          int preloadWarmup, int transactionVersion) {
        public boolean preload() {
            return ratePerSecond == 0;
        }

        /** These options for run {@code i} of a series: its own work directory, run-i, under this one. */
        public Options inRun(int i) {
            return new Options(requests, workers, gpusPerWorker, routers, policy, ratePerSecond, bootstrapServers, registryUrl,
                    replicationFactor, workDir.resolve("run-" + i), blockTokens, copy, copyPartitions, settings, stallTimeout, trace,
                    commandLine, warmupSeconds, preloadWarmup, transactionVersion);
        }

        /**
         * How many of the first requests warm the processes up and are not measured: pre-loaded, {@link #preloadWarmup} more than
         * {@link #requests}; with a rate, those offered in the first {@link #warmupSeconds}, among the {@link #requests}.
         */
        public int warmupRequests() {
            return preload() ? preloadWarmup : (int) Math.min(requests / 2, Math.floor(ratePerSecond * warmupSeconds));
        }

        /** Every request written to the requests topic, warm-up included. */
        public int totalRequests() {
            return preload() ? preloadWarmup + requests : requests;
        }
    }

    /** Producer errors worth counting in a process's log: each is retried, but a healthy run should show none. */
    static final List<String> PRODUCER_ERRORS = List.of("CONCURRENT_TRANSACTIONS", "OUT_OF_ORDER_SEQUENCE_NUMBER",
            "INVALID_PRODUCER_EPOCH", "PRODUCER_FENCED", "UNKNOWN_PRODUCER_ID", "INVALID_TXN_STATE", "TRANSACTION_ABORTABLE",
            "NOT_LEADER_OR_FOLLOWER", "REQUEST_TIMED_OUT", "NETWORK_EXCEPTION");
    private static final Duration READ_BACK_TIMEOUT = Duration.ofMinutes(5);
    static final int PRELOAD_ROUNDS = 3;
    private static final String ROUTER_HEAP = "384m";

    private final Options options;
    private final PrintStream progress;
    /** With a rate, requests the broker did not acknowledge: resending would break the rate, so the report says so. */
    private final AtomicLong offerFailures = new AtomicLong();
    private final AtomicReference<Exception> offerError = new AtomicReference<>();

    public LoadtestRun(Options options, PrintStream progress) {
        this.options = options;
        this.progress = progress;
    }

    public LoadtestReport run() throws Exception {
        Files.createDirectories(options.workDir());
        boolean own = options.bootstrapServers() == null;
        String runId = Long.toString(System.currentTimeMillis(), 36);
        LocalKafkaBroker broker = null;
        ApicurioRegistry registry = null;
        try {
            String bootstrap;
            String registryUrl;
            if (own) {
                progress.println("kvroute loadtest: starting a KRaft broker and a schema registry in " + options.workDir() + " ...");
                broker = new LocalKafkaBroker(options.workDir().resolve("kafka"), "512m", 1);
                if (options.transactionVersion() > 0) {
                    broker.withTransactionVersion(options.transactionVersion());
                }
                broker.start();
                registry = ApicurioRegistry.start(options.workDir().resolve("registry"));
                bootstrap = broker.bootstrapServers();
                registryUrl = registry.url();
            } else {
                bootstrap = options.bootstrapServers();
                registryUrl = options.registryUrl();
            }
            // on a shared cluster every name is this run's own, so nothing of anyone else's is touched
            String prefix = own ? KvrouteTopics.DEFAULT_PREFIX : "kvroute-loadtest-" + runId;
            List<Long> brokerPids = broker == null ? List.of() : broker.pids();
            return measure(bootstrap, registryUrl, prefix, brokerPids, own);
        } finally {
            if (registry != null) {
                registry.close();
            }
            if (broker != null) {
                broker.close();
            }
        }
    }

    private LoadtestReport measure(String bootstrap, String registryUrl, String prefix, List<Long> brokerPids, boolean own)
            throws Exception {
        KvrouteTopics topics = new KvrouteTopics(prefix, KvrouteTopics.DEFAULT_PARTITIONS);
        Map<String, Integer> gpusByRegion = RegionSplit.of(options.workers());
        // the fleet of worker processes: one dispatch partition each, shared by its GPU slots
        FleetSpec fleet = LocalFleet.parse(RegionSplit.spec(RegionSplit.processes(gpusByRegion, options.gpusPerWorker())));
        String fleetDescription = RegionSplit.spec(gpusByRegion) + " GPUs, up to " + options.gpusPerWorker() + " per worker process: "
                + fleet.gpusByRegion().values().stream().mapToInt(Integer::intValue).sum() + " dispatch partitions";
        KvrouteServices services = new KvrouteServices(bootstrap, registryUrl, topics, fleet, options.policy(), options.workDir(),
                options.settings(), options.routers());
        String appId = services.routerSettings().string(RouterConfig.APPLICATION_ID);
        String copyTopic = prefix + ".loadtest-copy";
        Serdes serdes = Serdes.forRegistryUrl(registryUrl);
        Path processDir = Files.createDirectories(options.workDir().resolve("processes"));
        Path logConfig = ServiceProcesses.writeLogConfig(processDir);
        List<String> notes = new ArrayList<>();
        if (!own) {
            notes.add("on the given cluster: topics " + prefix + ".* and the router's " + appId + "-* were created and left in place"
                    + "; the __ topics' figures include whatever else the cluster did meanwhile");
        }

        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            int transactionVersion = finalizedTransactionVersion(admin);
            services.createTopics(options.replicationFactor());
            createTopic(admin, copyTopic, options.copyPartitions());
            TopicWrites writes = new TopicWrites(admin, bootstrap);
            List<TopicPartition> dispatchPartitions = new ArrayList<>();
            fleet.gpusByRegion().forEach((region, slots) -> {
                for (int p = 0; p < slots; p++) {
                    dispatchPartitions.add(new TopicPartition(topics.dispatchTopic(region), p));
                }
            });
            List<TopicPartition> decisionPartitions = partitions(topics.decisions().name(), topics.decisions().partitions());

            LoadtestWorkload workload = new LoadtestWorkload(MooncakeTrace.read(options.trace(), Integer.MAX_VALUE),
                    options.blockTokens(), "lt-" + prefix + "-", Clock.systemUTC());
            Serializer<InferenceRequest> requestSerializer = serdes.valueSerde(InferenceRequest.class).serializer();
            progress.printf("kvroute loadtest: telemetry of %d idle workers (%s) every %d ms%n", options.workers(), fleetDescription,
                    IdleFleet.INTERVAL_MS);
            try (IdleFleet idle = new IdleFleet(bootstrap, topics.workerTelemetry().name(), gpusByRegion, options.gpusPerWorker(),
                    IdleFleet.settingsOf(services, fleet.gpusByRegion()), serdes.valueSerde(WorkerTelemetry.class).serializer()).start();
                 KafkaProducer<String, byte[]> producer = requestProducer(bootstrap)) {
                long promptChars = 0;
                if (options.preload()) {
                    promptChars = preload(producer, workload, requestSerializer, topics.requests().name());
                }
                String idPrefix = workload.requestIdPrefix();
                LoadtestReport.Phase copy = null;
                if (options.copy() && options.preload()) {
                    copy = copyPhase(bootstrap, topics.requests().name(), copyTopic, prefix + "-loadtest-copy-" + Long.toString(System.currentTimeMillis(), 36),
                            brokerPids, processDir, logConfig, idPrefix);
                }

                TopicWrites.Snapshot before = writes.snapshot();
                List<ServiceProcess> routers = new ArrayList<>();
                for (int i = 0; i < options.routers(); i++) {
                    Map<String, String> settings = new LinkedHashMap<>(services.routerSettings().asMap());
                    settings.put(RouterConfig.STATE_DIR, options.workDir().resolve("router-state-" + i).toAbsolutePath().toString());
                    routers.add(new ServiceProcess("router-" + i, RouterApp.class.getName(), ROUTER_HEAP, settings, processDir, logConfig));
                }
                AtomicLongArray sentAtMs = options.preload() ? null : new AtomicLongArray(options.requests());
                Supplier<Map<String, Double>> cpu = () -> cpuOf(Map.of(LoadtestReport.ROUTER,
                        routers.stream().map(ServiceProcess::pid).toList(), LoadtestReport.BROKER, brokerPids,
                        LoadtestReport.LOADTEST, List.of(ProcessHandle.current().pid())));
                LoadtestReport.Phase route;
                LoadtestReport.Latency latency = null;
                try {
                    progress.printf("kvroute loadtest: starting %d router instance(s), policy %s%n", options.routers(), options.policy());
                    routers.forEach(ServiceProcess::start);
                    // with a rate the warm-up is left out of the latencies only (sentAtMs), as the rate itself is what is measured
                    try (CommittedWatch watch = new CommittedWatch(bootstrap, dispatchPartitions, decisionPartitions, cpu, idPrefix,
                            options.preload() ? options.warmupRequests() : 0, sentAtMs)) {
                        if (options.preload()) {
                            watch.start();
                        } else {
                            awaitGroup(admin, appId, options.routers(), routers);
                            watch.start();
                            Offered offered = offer(producer, workload, requestSerializer, topics.requests().name(), sentAtMs);
                            promptChars = offered.promptChars();
                            if (offered.encodedAhead() < options.requests()) {
                                notes.add("the first " + offered.encodedAhead() + " of the " + options.requests() + " requests were "
                                        + "encoded before the clock started (a quarter of this process's heap); the rest were "
                                        + "encoded while offered, on the measured cores");
                            }
                            awaitDone(watch, routers, "routed");
                            latency = LoadtestReport.Latency.of(options.ratePerSecond(), offered.sentPerSecond(), watch.latenciesMs());
                        }
                        if (options.preload()) {
                            awaitDone(watch, routers, "routed");
                        }
                        route = phaseOf(watch);
                    }
                    // the routers' last transactions are committed by now (their dispatches were read); let anything after them land
                    TimeUnit.SECONDS.sleep(1);
                    TopicWrites.Snapshot after = writes.snapshot();
                    Map<String, Long> outcomes = new TreeMap<>();
                    Span[] decided = {Span.EMPTY};
                    Deserializer<RoutingDecision> decisions = serdes.valueSerde(RoutingDecision.class).deserializer();
                    Map<String, TopicWrites.Written> written = writes.between(before, after,
                            topic -> groupOf(topic, prefix, appId, topics, copyTopic), record -> {
                                if (record.topic().equals(topics.decisions().name()) && record.value() != null) {
                                    RoutingDecision decision = decisions.deserialize(record.topic(), record.value());
                                    outcomes.merge(decision.getOutcome().name(), 1L, Long::sum);
                                    if (decision.getOutcome() == DecisionOutcome.DISPATCHED
                                            && !(options.preload() && CommittedWatch.warmsUp(decision.getRequestId(), idPrefix,
                                                    options.warmupRequests()))) {
                                        decided[0] = decided[0].plus(decision.getDecidedAtMs());
                                    }
                                }
                            }, READ_BACK_TIMEOUT);
                    explainParking(written, appId, notes);
                    routers.forEach(ServiceProcess::close);
                    Map<String, Map<String, Long>> errors = new TreeMap<>();
                    for (ServiceProcess router : routers) {
                        errors.put(router.name(), countErrors(router.log()));
                    }
                    if (copy != null) {
                        errors.put("copy", countErrors(processDir.resolve("copy.log")));
                    }
                    if (offerFailures.get() > 0) {
                        notes.add(offerFailures.get() + " offered requests were not acknowledged by the broker and never reached the "
                                + "router (first error: " + offerError.get() + "); the latency figures leave them out");
                    }
                    if (idle.failed() > 0) {
                        notes.add(idle.failed() + " telemetry records failed to send");
                    }
                    Map<String, Object> setup = setup(fleetDescription, dispatchPartitions.size(), promptChars, own, appId);
                    setup.put("transactionVersion", transactionVersion);
                    return new LoadtestReport(setup, copy, route, decided[0], outcomes, List.copyOf(written.values()), latency,
                            errors, notes);
                } finally {
                    routers.forEach(ServiceProcess::close);
                }
            }
        }
    }

    private LoadtestReport.Phase copyPhase(String bootstrap, String source, String sink, String appId, List<Long> brokerPids,
                                           Path processDir, Path logConfig, String idPrefix) throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(CopyApp.BOOTSTRAP, bootstrap);
        settings.put(CopyApp.SOURCE, source);
        settings.put(CopyApp.SINK, sink);
        settings.put(CopyApp.APPLICATION_ID, appId);
        settings.put(CopyApp.STATE_DIR, options.workDir().resolve("copy-state").toAbsolutePath().toString());
        ServiceProcess copy = new ServiceProcess("copy", CopyApp.class.getName(), ROUTER_HEAP, settings, processDir, logConfig);
        progress.printf("kvroute loadtest: copy app (exactly_once_v2, commit 50 ms) %s -> %s (%d partitions)%n", source, sink,
                options.copyPartitions());
        try {
            copy.start();
            Supplier<Map<String, Double>> cpu = () -> cpuOf(Map.of(LoadtestReport.COPY, List.of(copy.pid()), LoadtestReport.BROKER, brokerPids));
            try (CommittedWatch watch = new CommittedWatch(bootstrap, partitions(sink, options.copyPartitions()), List.of(), cpu,
                    idPrefix, options.warmupRequests(), null).start()) {
                awaitDone(watch, List.of(copy), "copied");
                return phaseOf(watch);
            }
        } finally {
            copy.close();
        }
    }

    private static LoadtestReport.Phase phaseOf(CommittedWatch watch) {
        return new LoadtestReport.Phase(watch.span().count(), watch.distinctKeys(), watch.span(), watch.perSecondBetween(0.1, 0.9),
                watch.cpuBetweenFirstAndLast(), watch.warmups());
    }

    /**
     * Waits until every request is seen (the warm-up's too, so the topics' writes are divided by what was written), or
     * every decision is and dispatches stopped, or nothing moved for the stall timeout.
     */
    private void awaitDone(CommittedWatch watch, List<ServiceProcess> processes, String verb) throws InterruptedException {
        long startMs = System.currentTimeMillis();
        long lastReportMs = startMs;
        while (true) {
            TimeUnit.MILLISECONDS.sleep(100);
            if (watch.failure() != null) {
                throw new IllegalStateException("the measuring consumer failed: " + watch.failure(), watch.failure());
            }
            long now = System.currentTimeMillis();
            long seen = watch.span().count();
            if (seen >= options.requests() && watch.warmups() >= watch.measuredFrom()) {
                break;
            }
            long idleMs = now - watch.lastProgressMs();
            if (watch.others() >= options.totalRequests() && idleMs > 2_000) {
                break;
            }
            if (idleMs > options.stallTimeout().toMillis()) {
                progress.printf("kvroute loadtest: nothing new for %d s; stopping with %d of %d %s%n", idleMs / 1000, seen,
                        options.requests(), verb);
                break;
            }
            for (ServiceProcess process : processes) {
                if (!process.isRunning()) {
                    throw new IllegalStateException(process.name() + " exited; see " + process.log());
                }
            }
            if (now - lastReportMs >= 5_000) {
                lastReportMs = now;
                progress.printf("[%4ds] %s %d/%d (%.0f/s so far)%n", (now - startMs) / 1000, verb, seen, options.requests(),
                        watch.span().perSecond());
            }
        }
    }

    /**
     * Writes every request before the routers start. A send the broker did not acknowledge (a delivery timeout on a
     * machine the 1,000-worker telemetry keeps busy lost 171 of 10,000 once, silently) is sent again, up to
     * {@value #PRELOAD_ROUNDS} rounds; after that the run fails naming how many are missing and why.
     */
    long preload(Producer<String, byte[]> producer, LoadtestWorkload workload, Serializer<InferenceRequest> serializer, String topic) {
        int total = options.totalRequests();
        progress.printf("kvroute loadtest: pre-loading %d requests on %s (the first %d to warm up, not measured) ...%n", total, topic,
                options.warmupRequests());
        long startNs = System.nanoTime();
        long chars = 0;
        List<Integer> pending = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            pending.add(i);
        }
        for (int round = 1; !pending.isEmpty(); round++) {
            Queue<Integer> failed = new ConcurrentLinkedQueue<>();
            AtomicReference<Exception> firstError = new AtomicReference<>();
            for (int i : pending) {
                InferenceRequest request = workload.request(i);
                if (round == 1 && i >= options.warmupRequests()) {
                    chars += request.getPrompt().length();
                }
                producer.send(new ProducerRecord<>(topic, request.getRequestId(), serializer.serialize(topic, request)), (meta, error) -> {
                    if (error != null) {
                        failed.add(i);
                        firstError.compareAndSet(null, error);
                    }
                });
            }
            producer.flush();
            pending = new ArrayList<>(failed);
            if (!pending.isEmpty()) {
                if (round == PRELOAD_ROUNDS) {
                    throw new IllegalStateException(pending.size() + " of " + total + " requests could not be written to "
                            + topic + " in " + PRELOAD_ROUNDS + " rounds: " + firstError.get());
                }
                progress.printf("kvroute loadtest: %d requests were not acknowledged (%s); sending them again%n", pending.size(),
                        firstError.get());
            }
        }
        progress.printf("kvroute loadtest: pre-loaded in %.1f s%n", (System.nanoTime() - startNs) / 1e9);
        return chars;
    }

    /**
     * What {@link #offer} sent: the prompts' total length, the rate it achieved from its first send to its flush, and how
     * many requests were encoded before the first send.
     */
    private record Offered(long promptChars, double sentPerSecond, int encodedAhead) {
    }

    /** Sends request i at {@code i / rate} s from the first send, its record timestamp the send time (CreateTime). */
    private Offered offer(KafkaProducer<String, byte[]> producer, LoadtestWorkload workload, Serializer<InferenceRequest> serializer,
                          String topic, AtomicLongArray sentAtMs) throws InterruptedException {
        progress.printf("kvroute loadtest: encoding %d requests, then offering them at %.0f/s ...%n", options.requests(),
                options.ratePerSecond());
        EncodedAhead encoded = new EncodedAhead(options.requests(), workload::request, request -> serializer.serialize(topic, request),
                Runtime.getRuntime().maxMemory() / 4);
        long startNs = System.nanoTime();
        for (int i = 0; i < options.requests(); i++) {
            byte[] value = encoded.take(i);
            long waitNs = startNs + (long) (i * 1e9 / options.ratePerSecond()) - System.nanoTime();
            if (waitNs > 0) {
                TimeUnit.NANOSECONDS.sleep(waitNs);
            }
            long now = System.currentTimeMillis();
            if (i >= options.warmupRequests()) {
                sentAtMs.set(i, now); // the watch measures requests with a send time only
            }
            producer.send(new ProducerRecord<>(topic, null, now, workload.requestId(i), value), (meta, error) -> {
                if (error != null) {
                    offerFailures.incrementAndGet();
                    offerError.compareAndSet(null, error);
                }
            });
        }
        producer.flush();
        return new Offered(encoded.promptChars(), options.requests() / ((System.nanoTime() - startNs) / 1e9), encoded.encodedAhead());
    }

    private static KafkaProducer<String, byte[]> requestProducer(String bootstrap) {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.CLIENT_ID_CONFIG, "kvroute-loadtest-requests",
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true),
                new StringSerializer(), new ByteArraySerializer());
    }

    private static void awaitGroup(Admin admin, String group, int members, List<ServiceProcess> processes) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline) {
            for (ServiceProcess process : processes) {
                if (!process.isRunning()) {
                    throw new IllegalStateException(process.name() + " exited during start-up; see " + process.log());
                }
            }
            try {
                ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get(10, TimeUnit.SECONDS).get(group);
                if (d != null && d.groupState() == GroupState.STABLE && d.members().size() >= members) {
                    return;
                }
            } catch (java.util.concurrent.ExecutionException e) {
                // not there yet
            }
            TimeUnit.MILLISECONDS.sleep(250);
        }
        throw new IllegalStateException("the routers' group " + group + " did not have " + members + " stable members within 2 minutes");
    }

    /** The cluster's finalized {@code transaction.version} (the report says what it means); 0 when it names none (before Kafka 4). */
    private static int finalizedTransactionVersion(Admin admin) throws Exception {
        var level = admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS).finalizedFeatures().get("transaction.version");
        return level == null ? 0 : level.maxVersionLevel();
    }

    private static void createTopic(Admin admin, String name, int partitions) throws Exception {
        try {
            admin.createTopics(List.of(new NewTopic(name, Optional.of(partitions), Optional.empty()))).all().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot create topic " + name + ": " + e.getCause(), e.getCause());
            }
            throw new IllegalStateException("topic " + name + " already exists: the copy must start from an empty topic; "
                    + "use a new --work-dir", e.getCause());
        }
    }

    private static List<TopicPartition> partitions(String topic, int count) {
        List<TopicPartition> list = new ArrayList<>();
        for (int p = 0; p < count; p++) {
            list.add(new TopicPartition(topic, p));
        }
        return list;
    }

    /** CPU seconds per role, summed over its processes; a role with a process that cannot be read is left out. */
    static Map<String, Double> cpuOf(Map<String, List<Long>> pidsByRole) {
        Map<String, Double> cpu = new LinkedHashMap<>();
        pidsByRole.forEach((role, pids) -> {
            double total = 0;
            for (long pid : pids) {
                double seconds = ProcessCpu.seconds(pid);
                if (seconds < 0) {
                    return;
                }
                total += seconds;
            }
            if (!pids.isEmpty()) {
                cpu.put(role, total);
            }
        });
        return cpu;
    }

    /** The row a topic's writes go to: the dispatch topics together, the router's own and Kafka's internal topics each alone. */
    static String groupOf(String topic, String prefix, String appId, KvrouteTopics topics, String copyTopic) {
        if (topic.equals(topics.requests().name()) || topic.equals(topics.workerTelemetry().name()) || topic.equals(copyTopic)) {
            return null;
        }
        if (topic.startsWith(prefix + ".dispatch.")) {
            return prefix + ".dispatch.* (all regions)";
        }
        if (topic.startsWith(prefix + ".") || topic.startsWith(appId + "-") || topic.startsWith("__")) {
            return topic;
        }
        return null;
    }

    private void explainParking(Map<String, TopicWrites.Written> written, String appId, List<String> notes) {
        TopicWrites.Written parked = written.get(appId + "-" + TopologyNames.PARKED_STORE + "-changelog");
        if (parked != null && parked.records() - parked.tombstones() > 0) {
            notes.add((parked.records() - parked.tombstones()) + " requests were parked (puts on the parked store's changelog): the "
                    + "router's own ledger of what it placed since the last telemetry saw the idle workers as full "
                    + "(router.saturation.queue.factor x maxRunningRequests pending per worker); the measure is then partly "
                    + "of parking. Give --set router.saturation.queue.factor=1000 to measure routing alone.");
        }
    }

    static Map<String, Long> countErrors(Path log) {
        Map<String, Long> counts = new LinkedHashMap<>();
        if (!Files.isReadable(log)) {
            return counts;
        }
        try (Stream<String> lines = Files.lines(log)) {
            lines.forEach(line -> {
                for (String error : PRODUCER_ERRORS) {
                    if (line.contains(error)) {
                        counts.merge(error, 1L, Long::sum);
                    }
                }
            });
        } catch (IOException | java.io.UncheckedIOException e) {
            counts.put("unreadable log", 1L);
        }
        return counts;
    }

    private Map<String, Object> setup(String fleetDescription, int dispatchPartitions, long promptChars, boolean own, String appId) {
        Map<String, Object> setup = new LinkedHashMap<>();
        String mode = options.preload() ? options.requests() + " requests pre-loaded after " + options.warmupRequests() + " to warm up"
                : options.requests() + " requests offered at " + Math.round(options.ratePerSecond()) + "/s";
        setup.put("summary", String.format("%s, %d idle workers (%s), %d router instance(s), policy %s, %s", mode, options.workers(),
                fleetDescription, options.routers(), options.policy(), own ? "own KRaft broker + Apicurio registry" : "given cluster"));
        setup.put("command", options.commandLine());
        setup.put("mode", options.preload() ? "preload" : "rate");
        setup.put("warmupRequests", options.warmupRequests());
        setup.put("requests", options.requests());
        setup.put("workers", options.workers());
        setup.put("gpusPerWorker", options.gpusPerWorker());
        setup.put("fleet", RegionSplit.fleetSpec(options.workers()));
        setup.put("dispatchPartitions", dispatchPartitions);
        setup.put("copyPartitions", options.copy() && options.preload() ? options.copyPartitions() : 0);
        setup.put("routers", options.routers());
        setup.put("policy", options.policy());
        setup.put("routerApplicationId", appId);
        setup.put("routerSettings", options.settings());
        setup.put("blockTokens", options.blockTokens());
        setup.put("meanPromptChars", options.requests() == 0 ? 0 : (double) promptChars / options.requests());
        setup.put("coresAvailable", Runtime.getRuntime().availableProcessors());
        setup.put("timing", "routed/s and copy records/s: (records - 1) / (time the read_committed watch first returned a measured "
                + "record -> time it returned the last), System.currentTimeMillis() at poll return; CPU: utime+stime from "
                + "/proc/<pid>/stat of the child JVMs and of this process, sampled at those two moments");
        return setup;
    }
}
