package io.kvroute.schemas.topics;

import io.kvroute.schemas.v1.CancelRequest;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.KvCacheEvent;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.RoutingDecision;
import io.kvroute.schemas.v1.WorkerTelemetry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every kvroute topic, declared once. Names are {@code <prefix>.<name>}, the prefix being
 * {@value #DEFAULT_PREFIX} unless configured, so several deployments can share a cluster.
 */
public final class KvrouteTopics {
    public static final String DEFAULT_PREFIX = "kvroute";
    public static final int DEFAULT_PARTITIONS = 4;
    private static final Pattern REGION_NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");
    private static final Pattern TENANT_NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private static final Map<String, String> DELETE_7D = Map.of("cleanup.policy", "delete", "retention.ms", "604800000");
    private static final Map<String, String> COMPACTED = Map.of(
            "cleanup.policy", "compact",
            // telemetry is small and hot: compact soon so a restarting router reads little
            "segment.ms", "600000",
            "min.cleanable.dirty.ratio", "0.1");

    private final String prefix;
    private final int partitions;

    public KvrouteTopics(String prefix, int partitions) {
        if (prefix == null || !prefix.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("kvroute.topic.prefix must be letters, digits, '.', '_' or '-', was '" + prefix + "'");
        }
        this.prefix = prefix;
        this.partitions = partitions;
    }

    public static KvrouteTopics defaults() {
        return new KvrouteTopics(DEFAULT_PREFIX, DEFAULT_PARTITIONS);
    }

    public String prefix() {
        return prefix;
    }

    public TopicSpec<InferenceRequest> requests() {
        return new TopicSpec<>(name("requests"), InferenceRequest.class, "requestId", partitions, DELETE_7D);
    }

    public TopicSpec<WorkerTelemetry> workerTelemetry() {
        return new TopicSpec<>(name("worker-telemetry"), WorkerTelemetry.class, "workerId", 1, COMPACTED);
    }

    public TopicSpec<KvCacheEvent> kvEvents() {
        return new TopicSpec<>(name("kv-events"), KvCacheEvent.class, "workerId", 1,
                Map.of("cleanup.policy", "delete", "retention.ms", "3600000"));
    }

    /** The dispatch topic of one region: partition p is GPU slot p of that region. */
    public TopicSpec<DispatchedRequest> dispatch(String region, int slots) {
        return new TopicSpec<>(dispatchTopic(region), DispatchedRequest.class, "requestId", slots, DELETE_7D);
    }

    public String dispatchTopic(String region) {
        if (region == null || !REGION_NAME.matcher(region).matches()) {
            throw new IllegalArgumentException("region name must be lower-case letters, digits and '-', was '" + region + "'");
        }
        return name("dispatch." + region);
    }

    public TopicSpec<RoutingDecision> decisions() {
        return new TopicSpec<>(name("decisions"), RoutingDecision.class, "requestId", partitions, DELETE_7D);
    }

    public TopicSpec<ResponseEvent> responses() {
        return new TopicSpec<>(name("responses"), ResponseEvent.class, "requestId", partitions, DELETE_7D);
    }

    /** Cancel events, compacted so the latest word on each request id is kept; partitioned like the requests topic. */
    public TopicSpec<CancelRequest> cancellations() {
        // compacted so the latest cancel per id stays, deleted after the requests' own retention so it cannot grow forever;
        // a user's cancel and the router's re-placement marker share the request id as key, so nothing is compacted
        // for a day (the default dedup retention, far beyond any reader's look-back): neither hides the other
        return new TopicSpec<>(name("cancellations"), CancelRequest.class, "requestId", partitions,
                Map.of("cleanup.policy", "compact,delete", "retention.ms", "604800000", "min.compaction.lag.ms", "86400000"));
    }

    /** Dead letters: the original bytes, with the reason in headers (see {@link DeadLetterHeaders}). */
    public TopicSpec<byte[]> deadLetters() {
        return new TopicSpec<>(name("dlq"), byte[].class, "original key", 1, DELETE_7D);
    }

    /**
     * A tenant's own requests topic in a deployment with topics per tenant: {@code <prefix>.requests.<tenant>}. Its
     * writers are that tenant's principal only (ACLs), so the router takes the tenant from the topic.
     */
    public TopicSpec<InferenceRequest> requestsOf(String tenant) {
        return new TopicSpec<>(name("requests." + checkTenant(tenant)), InferenceRequest.class, "requestId", partitions, DELETE_7D);
    }

    /** A tenant's own responses topic, {@code <prefix>.responses.<tenant>}: only that tenant reads it. */
    public TopicSpec<ResponseEvent> responsesOf(String tenant) {
        return new TopicSpec<>(name("responses." + checkTenant(tenant)), ResponseEvent.class, "requestId", partitions, DELETE_7D);
    }

    /**
     * A tenant's own cancels, {@code <prefix>.cancellations.<tenant>}: the router passes them on to {@link #cancellations()},
     * stamped with the tenant, which then only the router writes.
     */
    public TopicSpec<CancelRequest> cancellationsOf(String tenant) {
        TopicSpec<CancelRequest> shared = cancellations();
        return new TopicSpec<>(name("cancellations." + checkTenant(tenant)), CancelRequest.class, "requestId", partitions,
                shared.configs());
    }

    /**
     * The requests topic a tenant writes under {@code layout}: its own with topics per tenant (for a name that can name
     * topics), else the shared one. Likewise {@link #responsesFor} and {@link #cancellationsFor}.
     */
    public String requestsFor(TenantTopics layout, String tenant) {
        return ownTopics(layout, tenant) ? requestsOf(tenant).name() : requests().name();
    }

    public String responsesFor(TenantTopics layout, String tenant) {
        return ownTopics(layout, tenant) ? responsesOf(tenant).name() : responses().name();
    }

    public String cancellationsFor(TenantTopics layout, String tenant) {
        return ownTopics(layout, tenant) ? cancellationsOf(tenant).name() : cancellations().name();
    }

    private static boolean ownTopics(TenantTopics layout, String tenant) {
        return layout == TenantTopics.PER_TENANT && isTenantName(tenant);
    }

    /** What every topic of {@code kind} with a suffix starts with: {@code <prefix>.<kind>.} (dispatch topics, tenants' topics). */
    public String namePrefix(String kind) {
        return name(kind) + ".";
    }

    /** The topics of one tenant in a deployment with topics per tenant. */
    public List<TopicSpec<?>> ofTenant(String tenant) {
        return List.of(requestsOf(tenant), responsesOf(tenant), cancellationsOf(tenant));
    }

    /** Matches every tenant's topic of {@code kind} ("requests", "responses", "cancellations"); group 1 is the tenant. */
    public Pattern tenantTopics(String kind) {
        return Pattern.compile(Pattern.quote(namePrefix(kind)) + "(" + TENANT_NAME.pattern() + ")");
    }

    /** The tenant a tenant topic of {@code kind} belongs to, or null for a topic that is not one. */
    public String tenantOf(String kind, String topic) {
        Matcher m = tenantTopics(kind).matcher(topic == null ? "" : topic);
        return m.matches() ? m.group(1) : null;
    }

    /** Whether {@code tenant} can name a tenant's topics: letters, digits, '_' or '-', at most 64. */
    public static boolean isTenantName(String tenant) {
        return tenant != null && TENANT_NAME.matcher(tenant).matches();
    }

    private static String checkTenant(String tenant) {
        if (!isTenantName(tenant)) {
            throw new IllegalArgumentException("a tenant with topics of its own is named by letters, digits, '_' or '-' (at most 64), was '"
                    + tenant + "'");
        }
        return tenant;
    }

    /** All topics of a deployment whose regions have the given number of GPU slots. */
    public List<TopicSpec<?>> all(Map<String, Integer> slotsByRegion) {
        List<TopicSpec<?>> specs = new ArrayList<>(List.of(requests(), workerTelemetry(), kvEvents(), decisions(), responses(), cancellations(), deadLetters()));
        slotsByRegion.forEach((region, slots) -> specs.add(dispatch(region, slots)));
        return specs;
    }

    private String name(String base) {
        return prefix + "." + base;
    }
}
