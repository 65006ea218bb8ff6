package io.kvroute.local.stack;

import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.platform.config.Settings;
import io.kvroute.platform.kafka.TopicCreator;
import io.kvroute.router.RouterApp;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.worker.WorkerApp;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kvroute's own processes on a given broker and registry: the topics, one router (or several
 * instances of it, which share the requests partitions and follow each other's decisions) and one
 * simulated-GPU worker per slot of each region, all in this JVM.
 */
public final class KvrouteServices implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KvrouteServices.class);
    /**
     * The local stack's model: the simulated engine with Llama-3.1-8B-on-H100 cost coefficients
     * and a 256k-token context window, because the Mooncake trace was recorded on a long-context
     * service and has prompts up to 191k tokens (Llama-3.1-8B itself stops at 128k).
     */
    public static final String MODEL = "sim-8b-256k";
    public static final int MODEL_CONTEXT_TOKENS = 262_144;

    private final String bootstrapServers;
    private final String registryUrl;
    private final KvrouteTopics topics;
    private final FleetSpec fleet;
    private final String policy;
    private final Path stateDir;
    private final Map<String, String> extraSettings;
    private final int routerInstances;
    private final List<RouterApp> routers = new ArrayList<>();
    private final List<WorkerApp> workers = new ArrayList<>();
    private Map<String, String> routerRole = Map.of();
    private Map<String, String> workerRole = Map.of();
    private Map<String, Object> adminSettings;

    public KvrouteServices(String bootstrapServers, String registryUrl, KvrouteTopics topics, FleetSpec fleet,
                           String policy, Path stateDir, Map<String, String> extraSettings) {
        this(bootstrapServers, registryUrl, topics, fleet, policy, stateDir, extraSettings, 1);
    }

    /** As above, with {@code routerInstances} instances of the router application. */
    public KvrouteServices(String bootstrapServers, String registryUrl, KvrouteTopics topics, FleetSpec fleet,
                           String policy, Path stateDir, Map<String, String> extraSettings, int routerInstances) {
        if (routerInstances < 1) {
            throw new IllegalArgumentException("router instances must be at least 1, was " + routerInstances);
        }
        this.routerInstances = routerInstances;
        this.bootstrapServers = bootstrapServers;
        this.registryUrl = registryUrl;
        this.topics = topics;
        this.fleet = fleet;
        this.policy = policy;
        this.stateDir = stateDir;
        this.extraSettings = Map.copyOf(extraSettings);
    }

    /**
     * On a secured cluster: each role's own settings (its principal, TLS), on top of the shared ones, and the
     * administrator's client settings for creating topics. Call before {@link #start()}.
     */
    public KvrouteServices withRoles(Map<String, String> router, Map<String, String> worker, Map<String, Object> admin) {
        this.routerRole = Map.copyOf(router);
        this.workerRole = Map.copyOf(worker);
        this.adminSettings = Map.copyOf(admin);
        return this;
    }

    /** Starts the router and workers, or nothing: on a failure those already started are closed. */
    public KvrouteServices start() {
        try {
            startAll();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        LOG.info("router ({}, {} instance(s)) and {} workers in {} regions running", policy, routers.size(), workers.size(),
                fleet.regions().size());
        return this;
    }

    /** Creates kvroute's topics (one dispatch partition per GPU slot of each region) where missing, unreplicated. */
    public void createTopics() {
        createTopics((short) 1);
    }

    public void createTopics(short replicationFactor) {
        try (Admin admin = Admin.create(adminSettings != null ? adminSettings : Map.of("bootstrap.servers", bootstrapServers))) {
            new TopicCreator(admin, replicationFactor).ensure(topics.all(fleet.gpusByRegion()));
        }
    }

    private void startAll() {
        createTopics();
        for (int i = 0; i < routerInstances; i++) {
            routers.add(RouterApp.start(routerSettings(i)));
        }
        for (FleetSpec.Region region : fleet.regions()) {
            for (int slot = 0; slot < region.gpus(); slot++) {
                workers.add(WorkerApp.start(workerSettings(region, slot)));
            }
        }
        for (RouterApp router : routers) {
            if (!router.awaitRunning(Duration.ofSeconds(60))) {
                throw new IllegalStateException("router instance " + router.instance() + " did not reach RUNNING within 60 s");
            }
        }
    }

    private Settings.Builder common() {
        Map<String, String> values = new HashMap<>();
        values.put("bootstrap.servers", bootstrapServers);
        values.put("schema.registry.url", registryUrl);
        values.put("kvroute.topic.prefix", topics.prefix());
        return Settings.builder().defaults(values);
    }

    public Settings routerSettings() {
        return routerSettings(0);
    }

    /** Settings of router instance {@code i}: the same application, a state directory of its own. */
    public Settings routerSettings(int i) {
        return common()
                .set("router.regions", fleet.regionNames())
                .set("router.policy", policy)
                .set("router.models", MODEL + ":" + MODEL_CONTEXT_TOKENS)
                .set("router.max.prompt.tokens", Integer.toString(MODEL_CONTEXT_TOKENS))
                .set("router.application.id", topics.prefix() + "-router")
                .set("router.state.dir", stateDir.resolve(i == 0 ? "router-state" : "router-state-" + i).toString())
                .overrides(extraSettings)
                .overrides(routerRole)
                .build();
    }

    public Settings workerSettings(FleetSpec.Region region, int slot) {
        return common()
                .set("worker.id", region.name() + "-" + slot)
                .set("worker.region", region.name())
                .set("worker.models", MODEL)
                .set("worker.network.delay.ms", Long.toString(region.delayMs()))
                .overrides(extraSettings)
                .overrides(workerRole)
                .build();
    }

    /** The first router instance. */
    public RouterApp router() {
        return routers.isEmpty() ? null : routers.get(0);
    }

    public List<RouterApp> routers() {
        return routers;
    }

    public List<WorkerApp> workers() {
        return workers;
    }

    @Override
    public void close() {
        workers.forEach(w -> closeQuietly(w, "worker " + w.workerId()));
        routers.forEach(r -> closeQuietly(r, "router " + r.instance()));
    }

    static void closeQuietly(AutoCloseable closeable, String what) {
        try {
            closeable.close();
        } catch (Exception e) {
            LOG.warn("closing {} failed: {}", what, e.toString());
        }
    }
}
