package io.kvroute.platform.kafka.acls;

import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.topics.TenantTopics;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The least ACLs each kvroute role needs on a cluster with an authorizer, for one deployment (its topic prefix and
 * router application id). A role is granted what its processes read and write, and nothing else:
 *
 * <ul>
 * <li><b>tenant</b> (a client that submits and collects): writes requests and cancellations, reads responses.
 * It cannot read decisions, telemetry, KV events, dispatch topics or the dead letters.</li>
 * <li><b>router</b>: reads requests, telemetry, KV events, cancellations, responses and its peers' decisions;
 * writes dispatch topics, decisions, responses (refusals), cancellations (re-placement markers) and dead letters;
 * owns its Kafka Streams application: its group, its transactional ids and its internal topics.</li>
 * <li><b>worker</b> of one region: reads its region's dispatch topic in its region's group and cancellations; writes
 * responses, telemetry, KV events and dead letters under its transactional id.</li>
 * <li><b>operator</b>: everything under the deployment's names (create topics, inspect and abort transactions).</li>
 * </ul>
 *
 * With shared topics ({@link TenantTopics#SHARED}) every tenant of a deployment reads every tenant's responses. With
 * topics per tenant ({@link TenantTopics#PER_TENANT}) a tenant is granted its own requests, cancellations and
 * responses topics only, and the router reads and workers answer every tenant's by prefix: tenants see nothing of
 * each other, and the cancellations topic the router and workers follow is written by the router alone.
 */
public final class KvrouteAcls {
    private final KvrouteTopics topics;
    private final String routerApplicationId;
    private final TenantTopics layout;

    public KvrouteAcls(String topicPrefix, String routerApplicationId) {
        this(topicPrefix, routerApplicationId, TenantTopics.SHARED);
    }

    public KvrouteAcls(String topicPrefix, String routerApplicationId, TenantTopics layout) {
        this.topics = new KvrouteTopics(topicPrefix, KvrouteTopics.DEFAULT_PARTITIONS);
        this.routerApplicationId = routerApplicationId;
        this.layout = layout;
    }

    /**
     * What a client submitting requests and collecting their results may do: as {@code tenant} with topics per tenant
     * (its own three topics), the shared topics otherwise ({@code tenant} unused).
     */
    public List<AclBinding> tenant(String principal, String tenant) {
        Grants g = new Grants(principal);
        boolean own = layout == TenantTopics.PER_TENANT;
        g.topic((own ? topics.requestsOf(tenant) : topics.requests()).name(), AclOperation.WRITE, AclOperation.DESCRIBE);
        g.topic((own ? topics.cancellationsOf(tenant) : topics.cancellations()).name(), AclOperation.WRITE, AclOperation.DESCRIBE);
        g.topic((own ? topics.responsesOf(tenant) : topics.responses()).name(), AclOperation.READ, AclOperation.DESCRIBE);
        return g.bindings;
    }

    /** What a router instance may do; every instance of one deployment shares its application id. */
    public List<AclBinding> router(String principal) {
        Grants g = new Grants(principal);
        for (String read : List.of(topics.requests().name(), topics.workerTelemetry().name(), topics.kvEvents().name())) {
            g.topic(read, AclOperation.READ, AclOperation.DESCRIBE);
        }
        for (String readWrite : List.of(topics.cancellations().name(), topics.responses().name(), topics.decisions().name())) {
            g.topic(readWrite, AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE);
        }
        g.topic(topics.deadLetters().name(), AclOperation.WRITE, AclOperation.DESCRIBE);
        g.add(topicsOfKind("dispatch"), AclOperation.WRITE, AclOperation.DESCRIBE);
        if (layout == TenantTopics.PER_TENANT) {
            for (String kind : List.of("requests", "cancellations")) {
                g.add(topicsOfKind(kind), AclOperation.READ, AclOperation.DESCRIBE);
            }
            g.add(topicsOfKind("responses"), AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE);
        }
        // Kafka Streams: internal topics (changelogs, admission), the group, and the transactional ids of exactly-once
        g.add(new ResourcePattern(ResourceType.TOPIC, routerApplicationId + "-", PatternType.PREFIXED), AclOperation.ALL);
        g.add(new ResourcePattern(ResourceType.GROUP, routerApplicationId, PatternType.LITERAL), AclOperation.READ, AclOperation.DESCRIBE);
        g.add(new ResourcePattern(ResourceType.TRANSACTIONAL_ID, routerApplicationId + "-", PatternType.PREFIXED),
                AclOperation.WRITE, AclOperation.DESCRIBE);
        return g.bindings;
    }

    /**
     * What a worker of {@code region} may do. With {@code workerId} its transactional id is granted literally (it
     * cannot fence another worker); without, the transactional ids of worker ids that start with the region and '-'
     * (one principal for a region's workers, as {@code us-east-0}, {@code us-east-1}...: it cannot fence another
     * region's workers, unless that region's name is this one's followed by '-').
     */
    public List<AclBinding> worker(String principal, String region, String workerId) {
        Grants g = new Grants(principal);
        g.topic(topics.dispatchTopic(region), AclOperation.READ, AclOperation.DESCRIBE);
        g.topic(topics.cancellations().name(), AclOperation.READ, AclOperation.DESCRIBE);
        for (String write : List.of(topics.responses().name(), topics.workerTelemetry().name(), topics.kvEvents().name(),
                topics.deadLetters().name())) {
            g.topic(write, AclOperation.WRITE, AclOperation.DESCRIBE);
        }
        if (layout == TenantTopics.PER_TENANT) {
            g.add(topicsOfKind("responses"), AclOperation.WRITE, AclOperation.DESCRIBE);
        }
        g.add(new ResourcePattern(ResourceType.GROUP, workerGroup(region), PatternType.LITERAL), AclOperation.READ, AclOperation.DESCRIBE);
        String transactionalIds = topics.prefix() + "-worker-";
        g.add(workerId == null
                ? new ResourcePattern(ResourceType.TRANSACTIONAL_ID, transactionalIds + region + "-", PatternType.PREFIXED)
                : new ResourcePattern(ResourceType.TRANSACTIONAL_ID, transactionalIds + workerId, PatternType.LITERAL),
                AclOperation.WRITE, AclOperation.DESCRIBE);
        return g.bindings;
    }

    /** What an operator may do: everything under the deployment's names, and inspecting the cluster. */
    public List<AclBinding> operator(String principal) {
        Grants g = new Grants(principal);
        for (String prefix : List.of(topics.prefix() + ".", routerApplicationId + "-")) {
            g.add(new ResourcePattern(ResourceType.TOPIC, prefix, PatternType.PREFIXED), AclOperation.ALL);
        }
        g.add(new ResourcePattern(ResourceType.GROUP, topics.prefix() + ".", PatternType.PREFIXED), AclOperation.ALL);
        g.add(new ResourcePattern(ResourceType.GROUP, routerApplicationId, PatternType.LITERAL), AclOperation.ALL);
        for (String prefix : List.of(topics.prefix() + "-worker-", routerApplicationId + "-")) {
            g.add(new ResourcePattern(ResourceType.TRANSACTIONAL_ID, prefix, PatternType.PREFIXED), AclOperation.ALL);
        }
        g.add(new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL) /* the cluster resource's only name */,
                AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS);
        return g.bindings;
    }

    /**
     * A Confluent Schema Registry that keeps its schemas on this cluster: its store topic (created on first start,
     * its configuration checked) and the group its instances elect a leader in. Confluent's documented grants for the
     * registry's principal; Apicurio with Kafka storage uses its own topic and group names.
     */
    public List<AclBinding> schemaRegistry(String principal, String storeTopic, String group) {
        Grants g = new Grants(principal);
        g.add(new ResourcePattern(ResourceType.TOPIC, storeTopic, PatternType.LITERAL), AclOperation.CREATE,
                AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS, AclOperation.READ, AclOperation.WRITE);
        g.add(new ResourcePattern(ResourceType.GROUP, group, PatternType.LITERAL), AclOperation.READ, AclOperation.DESCRIBE);
        return g.bindings;
    }

    /** The consumer group of a region's workers, as {@code WorkerConfig.groupId} names it. */
    public String workerGroup(String region) {
        return topics.prefix() + ".worker." + region;
    }

    /** Every topic of {@code kind} with a suffix, as a prefix: {@code <prefix>.dispatch.} (regions), {@code <prefix>.requests.} (tenants). */
    private ResourcePattern topicsOfKind(String kind) {
        return new ResourcePattern(ResourceType.TOPIC, topics.namePrefix(kind), PatternType.PREFIXED);
    }

    /** Allow entries of one principal from any host. */
    private static final class Grants {
        private final String principal;
        private final List<AclBinding> bindings = new ArrayList<>();

        Grants(String principal) {
            if (principal == null || !principal.matches("[A-Za-z]+:.+")) {
                throw new IllegalArgumentException("a principal is TYPE:NAME, e.g. User:router, was '" + principal + "'");
            }
            this.principal = principal;
        }

        void topic(String name, AclOperation... operations) {
            add(new ResourcePattern(ResourceType.TOPIC, name, PatternType.LITERAL), operations);
        }

        void add(ResourcePattern resource, AclOperation... operations) {
            for (AclOperation operation : operations) {
                bindings.add(new AclBinding(resource, new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW)));
            }
        }
    }
}
