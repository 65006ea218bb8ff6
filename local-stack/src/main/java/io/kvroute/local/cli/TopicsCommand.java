package io.kvroute.local.cli;

import io.kvroute.local.stack.LocalFleet;
import io.kvroute.platform.kafka.TopicCreator;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.topics.TopicSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Creates (or checks) every kvroute topic of a deployment with its declared settings. */
@Command(name = "topics", mixinStandardHelpOptions = true,
        description = "Create kvroute's topics: requests, worker-telemetry (compacted), kv-events, dispatch.<region>, decisions, responses, dlq.")
public final class TopicsCommand implements Callable<Integer> {
    @Mixin
    AdminConnection connection;

    @Option(names = "--topic-prefix", defaultValue = KvrouteTopics.DEFAULT_PREFIX, description = "Topic name prefix (default: ${DEFAULT-VALUE}).")
    String prefix;

    @Option(names = "--partitions", defaultValue = "4", description = "Partitions of requests, decisions and responses (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--regions", required = true, description = "Regions and their dispatch partitions, one per worker process (a GPU slot, or a node of worker.gpus slots), e.g. us-east=4,eu-west=2.")
    String regions;

    @Option(names = "--replication-factor", defaultValue = "1", description = "Replication factor (default: ${DEFAULT-VALUE}).")
    short replicationFactor;

    @Option(names = "--tenants", split = ",", paramLabel = "TENANT",
            description = "With kvroute.tenant.topics=per-tenant: also each tenant's requests, responses and cancellations topics.")
    List<String> tenants = new ArrayList<>();

    @Override
    public Integer call() {
        KvrouteTopics topics = new KvrouteTopics(prefix, partitions);
        List<TopicSpec<?>> specs = new ArrayList<>(topics.all(LocalFleet.parse(regions).gpusByRegion()));
        for (String tenant : tenants) {
            if (!KvrouteTopics.isTenantName(tenant)) {
                System.err.println("kvroute topics: --tenants takes names of letters, digits, '_' or '-' (at most 64), was '" + tenant + "'");
                return 2;
            }
            specs.addAll(topics.ofTenant(tenant));
        }
        try (Admin admin = Admin.create(connection.settings())) {
            new TopicCreator(admin, replicationFactor).ensure(specs);
        }
        specs.forEach(s -> System.out.printf("%-40s partitions=%d %s%n", s.name(), s.partitions(), s.compacted() ? "compacted" : ""));
        return 0;
    }
}
