package io.kvroute.local.cli;

import io.kvroute.platform.kafka.acls.KvrouteAcls;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.topics.TenantTopics;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclBinding;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Prints, and with {@code --apply} creates, the least ACLs of each role of a deployment ({@link KvrouteAcls}). */
@Command(name = "acls", mixinStandardHelpOptions = true,
        description = {"Print (or --apply) the ACLs each role needs on a cluster with an authorizer: tenants, routers, workers, operators.",
            "Example: kvroute acls --tenant User:acme --router User:router --worker User:gpu-east=us-east --operator User:ops"})
public final class AclsCommand implements Callable<Integer> {
    private static final long APPLY_TIMEOUT_MS = 30_000;

    @Spec
    CommandSpec spec;

    @Mixin
    AdminConnection connection;

    @Option(names = "--topic-prefix", defaultValue = KvrouteTopics.DEFAULT_PREFIX, description = "The deployment's topic prefix (default: ${DEFAULT-VALUE}).")
    String prefix;

    @Option(names = "--router-application-id", defaultValue = "kvroute-router",
            description = "The routers' router.application.id (default: ${DEFAULT-VALUE}).")
    String routerApplicationId;

    @Option(names = "--tenant-topics", defaultValue = "shared",
            description = "The deployment's kvroute.tenant.topics: shared or per-tenant (default: ${DEFAULT-VALUE}).")
    String tenantTopics;

    @Option(names = "--tenant", paramLabel = "PRINCIPAL[=TENANT]",
            description = "A client that submits and collects, e.g. User:acme; with per-tenant topics, its tenant (default: the principal's name) (repeatable).")
    List<String> tenants = new ArrayList<>();

    @Option(names = "--router", paramLabel = "PRINCIPAL", description = "The routers' principal, e.g. User:router (repeatable).")
    List<String> routers = new ArrayList<>();

    @Option(names = "--worker", paramLabel = "PRINCIPAL=REGION[/WORKER_ID]",
            description = "A worker principal and its region, e.g. User:gpu-east=us-east; with /WORKER_ID only that worker's transactional id (repeatable).")
    List<String> workers = new ArrayList<>();

    @Option(names = "--operator", paramLabel = "PRINCIPAL", description = "An operator, e.g. User:ops (repeatable).")
    List<String> operators = new ArrayList<>();

    @Option(names = "--schema-registry", paramLabel = "PRINCIPAL",
            description = "A Confluent Schema Registry storing its schemas on this cluster, e.g. User:registry (repeatable).")
    List<String> schemaRegistries = new ArrayList<>();

    @Option(names = "--schema-registry-topic", paramLabel = "TOPIC", defaultValue = "_schemas",
            description = "The registry's kafkastore.topic (default: ${DEFAULT-VALUE}).")
    String schemaRegistryTopic;

    @Option(names = "--schema-registry-group", paramLabel = "GROUP", defaultValue = "schema-registry",
            description = "The registry's schema.registry.group.id (default: ${DEFAULT-VALUE}).")
    String schemaRegistryGroup;

    @Option(names = "--apply", description = "Create the ACLs on the cluster (as a principal allowed to alter ACLs: --command-config).")
    boolean apply;

    @Override
    public Integer call() {
        Map<String, List<AclBinding>> byRole = plan();
        if (byRole.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "name at least one principal: --tenant, --router, --worker, --operator or --schema-registry");
        }
        byRole.forEach((role, bindings) -> {
            System.out.println("# " + role);
            bindings.forEach(b -> System.out.println(line(b)));
        });
        if (!apply) {
            return 0;
        }
        List<AclBinding> all = byRole.values().stream().flatMap(List::stream).toList();
        try (Admin admin = Admin.create(connection.settings())) {
            admin.createAcls(all).all().get(APPLY_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            System.err.println("kvroute acls: creating the ACLs on " + connection.bootstrapServers() + " failed: " + e.getCause());
            return 1;
        } catch (TimeoutException e) {
            System.err.println("kvroute acls: no answer from " + connection.bootstrapServers() + " within " + APPLY_TIMEOUT_MS + " ms");
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
        System.out.println(all.size() + " ACL(s) created on " + connection.bootstrapServers());
        return 0;
    }

    /** The bindings of every named principal, by role and principal, in the order given. */
    Map<String, List<AclBinding>> plan() {
        if (!TenantTopics.NAMES.contains(tenantTopics)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--tenant-topics must be one of " + TenantTopics.NAMES
                    + ", was '" + tenantTopics + "'");
        }
        TenantTopics layout = TenantTopics.of(tenantTopics);
        KvrouteAcls acls = new KvrouteAcls(prefix, routerApplicationId, layout);
        Map<String, List<AclBinding>> byRole = new LinkedHashMap<>();
        try {
            for (String tenant : tenants) {
                int eq = tenant.lastIndexOf('=');
                String principal = eq > 0 ? tenant.substring(0, eq) : tenant;
                String name = eq > 0 ? tenant.substring(eq + 1) : principal.substring(principal.indexOf(':') + 1);
                if (layout == TenantTopics.PER_TENANT && !KvrouteTopics.isTenantName(name)) {
                    throw new IllegalArgumentException("--tenant " + tenant + ": the tenant '" + name
                            + "' names its topics, so letters, digits, '_' or '-' (at most 64); give it as PRINCIPAL=TENANT");
                }
                byRole.put("tenant " + principal + (layout == TenantTopics.PER_TENANT ? " as " + name : ""), acls.tenant(principal, name));
            }
            routers.forEach(p -> byRole.put("router " + p, acls.router(p)));
            for (String worker : workers) {
                int eq = worker.lastIndexOf('=');
                if (eq <= 0 || eq == worker.length() - 1) {
                    throw new IllegalArgumentException("--worker takes PRINCIPAL=REGION[/WORKER_ID], was '" + worker + "'");
                }
                String[] regionAndId = worker.substring(eq + 1).split("/", 2);
                String principal = worker.substring(0, eq);
                byRole.put("worker " + principal + " in " + regionAndId[0],
                        acls.worker(principal, regionAndId[0], regionAndId.length == 2 ? regionAndId[1] : null));
            }
            operators.forEach(p -> byRole.put("operator " + p, acls.operator(p)));
            schemaRegistries.forEach(p -> byRole.put("schema registry " + p,
                    acls.schemaRegistry(p, schemaRegistryTopic, schemaRegistryGroup)));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        return byRole;
    }

    /** One binding as a line: permission, principal, operation, resource type, pattern, name. */
    static String line(AclBinding b) {
        return String.format("%-5s %-24s %-16s %-16s %-8s %s", b.entry().permissionType(), b.entry().principal(), b.entry().operation(),
                b.pattern().resourceType(), b.pattern().patternType(), b.pattern().name());
    }
}
