package io.kvroute.local.stack;

import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.platform.kafka.TopicCreator;
import io.kvroute.platform.kafka.acls.KvrouteAcls;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.topics.TenantTopics;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclBinding;

/**
 * kvroute as a production cluster would run it, on a {@link LocalKafkaBroker#secured} broker: topics per tenant, a
 * SCRAM-SHA-512 principal per role (the router, the workers, each tenant) with a random password, and exactly the ACLs
 * of {@link KvrouteAcls} for each. Made before the broker starts, it hands the broker its users, created when the
 * storage is formatted ({@link LocalKafkaBroker#withScramUsers}); {@link #provision} then creates topics and ACLs as the
 * broker's administrator. The settings methods give each role what it connects with, and {@link #writeClientProperties}
 * a file a user can hand to {@code kvroute submit} or {@code collect} as that tenant.
 */
public final class SecuredDeployment {
    public static final List<String> TENANTS = List.of("acme", "globex");
    static final String ROUTER_USER = "router";
    static final String WORKER_USER = "worker";
    private static final long ADMIN_TIMEOUT_S = 30;

    private final LocalKafkaBroker broker;
    private final KvrouteTopics topics;
    private final FleetSpec fleet;
    private final Map<String, String> passwords = new LinkedHashMap<>();

    /** Gives {@code broker} (secured, not yet started) a SCRAM user with a random password for each role. */
    public SecuredDeployment(LocalKafkaBroker broker, KvrouteTopics topics, FleetSpec fleet) {
        this.broker = broker;
        this.topics = topics;
        this.fleet = fleet;
        for (String user : principals()) {
            passwords.put(user, UUID.randomUUID().toString());
        }
        broker.withScramUsers(passwords);
    }

    private static List<String> principals() {
        List<String> users = new ArrayList<>(List.of(ROUTER_USER, WORKER_USER));
        users.addAll(TENANTS);
        return users;
    }

    /** Creates every topic (the tenants' too) and the ACLs of each role, the router's for {@code routerApplicationId}. */
    public void provision(String routerApplicationId) {
        KvrouteAcls acls = new KvrouteAcls(topics.prefix(), routerApplicationId, TenantTopics.PER_TENANT);
        List<AclBinding> bindings = new ArrayList<>(acls.router("User:" + ROUTER_USER));
        for (FleetSpec.Region region : fleet.regions()) {
            bindings.addAll(acls.worker("User:" + WORKER_USER, region.name(), null));
        }
        TENANTS.forEach(tenant -> bindings.addAll(acls.tenant("User:" + tenant, tenant)));
        try (Admin admin = Admin.create(broker.adminClientSettings())) {
            TopicCreator creator = new TopicCreator(admin, broker.replicationFactor());
            creator.ensure(topics.all(fleet.gpusByRegion()));
            TENANTS.forEach(tenant -> creator.ensure(topics.ofTenant(tenant)));
            admin.createAcls(bindings).all().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot provision the secured cluster's topics and ACLs: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted provisioning the secured cluster", e);
        }
    }

    /** The router's settings on top of its usual ones: its principal over TLS, topics per tenant. */
    public Map<String, String> routerSettings() {
        return roleSettings(ROUTER_USER);
    }

    /** Every worker's settings on top of its usual ones. */
    public Map<String, String> workerSettings() {
        return roleSettings(WORKER_USER);
    }

    /** A tenant's client settings on top of the bootstrap servers, registry and topic prefix. */
    public Map<String, String> clientSettings(String tenant) {
        Map<String, String> settings = roleSettings(tenant);
        settings.put("ingress.tenant", tenant);
        return settings;
    }

    /** The administrator's client settings (the broker's super user). */
    public Map<String, Object> adminSettings() {
        return broker.adminClientSettings();
    }

    /** Writes {@code tenant}'s client properties (secret: readable by this user only) into {@code dir}. */
    public Path writeClientProperties(Path dir, String tenant, Map<String, String> common) {
        Properties p = new Properties();
        common.forEach(p::setProperty);
        clientSettings(tenant).forEach(p::setProperty);
        Path file = dir.resolve(tenant + ".properties");
        try {
            Files.createDirectories(dir);
            StringWriter text = new StringWriter();
            p.store(text, "kvroute client of tenant " + tenant + " on the demo's secured cluster (holds its password)");
            BrokerTls.writeSecret(file, text.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        return file;
    }

    /** The {@code sasl.jaas.config} of a SCRAM client logging in as {@code user}. */
    public static String scramJaas(String user, String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\"" + password + "\";";
    }

    private Map<String, String> roleSettings(String user) {
        Map<String, String> settings = new HashMap<>();
        broker.clientTlsSettings().forEach((k, v) -> settings.put("kafka." + k, String.valueOf(v)));
        settings.put("kafka.sasl.mechanism", "SCRAM-SHA-512");
        settings.put("kafka.sasl.jaas.config", scramJaas(user, passwords.get(user)));
        settings.put(TenantTopics.SETTING, TenantTopics.PER_TENANT.setting());
        return settings;
    }
}
