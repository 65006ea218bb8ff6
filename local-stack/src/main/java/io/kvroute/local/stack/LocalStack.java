package io.kvroute.local.stack;

import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.platform.registry.ApicurioRegistry;
import io.kvroute.schemas.topics.KvrouteTopics;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded local stack: a real KRaft broker and a real schema registry (child JVMs) under
 * {@code dir}, and kvroute's services ({@link KvrouteServices}) on them.
 */
public final class LocalStack implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LocalStack.class);

    private final Path dir;
    private final FleetSpec fleet;
    private final String policy;
    private final Map<String, String> extraSettings;
    private final int routerInstances;
    private final KvrouteTopics topics = KvrouteTopics.defaults();
    private LocalKafkaBroker broker;
    private ApicurioRegistry registry;
    private KvrouteServices services;
    private int kafkaPort;
    private int controllerPort;
    private int registryPort;
    private boolean keepsSchemas;
    private boolean secured;
    private SecuredDeployment security;

    public LocalStack(Path dir, FleetSpec fleet, String policy, Map<String, String> extraSettings) {
        this(dir, fleet, policy, extraSettings, 1);
    }

    /** As above, with {@code routerInstances} instances of the router. */
    public LocalStack(Path dir, FleetSpec fleet, String policy, Map<String, String> extraSettings, int routerInstances) {
        this.routerInstances = routerInstances;
        this.dir = dir;
        this.fleet = fleet;
        this.policy = policy;
        this.extraSettings = Map.copyOf(extraSettings);
    }

    /**
     * Listens on these ports (0: any free one) and keeps the registry's schemas in {@code dir}, so a
     * stack started again on the same directory has the same addresses and still reads what it wrote
     * (the broker keeps its data there in any case).
     */
    public LocalStack kept(int kafkaPort, int controllerPort, int registryPort) {
        this.kafkaPort = kafkaPort;
        this.controllerPort = controllerPort;
        this.registryPort = registryPort;
        this.keepsSchemas = true;
        return this;
    }

    /**
     * Runs on a secured broker (SASL over TLS, the KRaft authorizer) with topics per tenant and a principal per role
     * holding only its ACLs ({@link SecuredDeployment}). Call before {@link #start()}.
     */
    public LocalStack secured() {
        this.secured = true;
        return this;
    }

    /** The secured deployment's principals and settings, or null when the stack is not {@link #secured}. */
    public SecuredDeployment security() {
        return security;
    }

    /** Client settings for reading every topic (decisions, responses): the administrator's on a secured stack. */
    public Map<String, Object> operatorClientSettings() {
        return security != null ? security.adminSettings() : Map.of("bootstrap.servers", broker.bootstrapServers());
    }

    /** Starts everything, or nothing: on a failure what was started is stopped before the error is thrown. */
    public LocalStack start() {
        long started = System.nanoTime();
        try {
            broker = new LocalKafkaBroker(dir.resolve("kafka"), "512m", kafkaPort, controllerPort);
            if (secured) {
                broker.secured(new LocalKafkaBroker.BrokerAdmin("admin", UUID.randomUUID().toString()));
                security = new SecuredDeployment(broker, topics, fleet);
            }
            broker.start();
            registry = ApicurioRegistry.start(dir.resolve("registry"), registryPort, keepsSchemas);
            LOG.info("broker at {} and schema registry at {} ready in {} ms", broker.bootstrapServers(), registry.url(),
                    (System.nanoTime() - started) / 1_000_000);
            services = new KvrouteServices(broker.bootstrapServers(), registry.url(), topics, fleet, policy, dir, extraSettings,
                    routerInstances);
            if (secured) {
                security.provision(services.routerSettings().string("router.application.id"));
                services.withRoles(security.routerSettings(), security.workerSettings(), security.adminSettings());
            }
            services.start();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        LOG.info("local stack up in {} ms", (System.nanoTime() - started) / 1_000_000);
        return this;
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    public String registryUrl() {
        return registry.url();
    }

    public KvrouteTopics topics() {
        return topics;
    }

    public KvrouteServices services() {
        return services;
    }

    public LocalKafkaBroker broker() {
        return broker;
    }

    /** Process ids of the child JVMs (broker, registry), for memory accounting. */
    public List<Long> childPids() {
        List<Long> pids = new ArrayList<>();
        if (broker != null) {
            pids.addAll(broker.pids());
        }
        if (registry != null) {
            pids.add(registry.pid());
        }
        return pids;
    }

    @Override
    public void close() {
        if (services != null) {
            KvrouteServices.closeQuietly(services, "services");
        }
        if (registry != null) {
            KvrouteServices.closeQuietly(registry, "registry");
        }
        if (broker != null) {
            KvrouteServices.closeQuietly(broker, "broker");
        }
    }
}
