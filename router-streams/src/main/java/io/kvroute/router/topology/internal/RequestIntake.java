package io.kvroute.router.topology.internal;

import io.kvroute.router.admission.Rejection;
import io.kvroute.router.admission.RequestValidator;
import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.router.routing.Residency;
import io.kvroute.router.routing.RouteRequest;
import io.kvroute.schemas.registry.SchemaRegistryException;
import io.kvroute.schemas.topics.DeadLetterHeaders;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.TreeSet;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes raw request records, claims their request ids and validates them. An undecodable record
 * goes to the dead-letter topic with its original key and value bytes and the reason in headers;
 * if its key is a readable request id, the sender also gets a REJECTED terminal response and a
 * REJECTED decision. Invalid requests get the same with the specific reason. Valid ones go on to
 * routing (or to admission, keyed by tenant, when tenants have quotas). A registry that cannot be
 * reached is not the record's fault: that error is thrown (and the record retried) instead of
 * dead-lettered.
 *
 * <p>The first record carrying a request id claims it ({@link AcceptedRequestIds}). A later one
 * with the same id, within the retention, is a duplicate: it is not validated or routed, and gets
 * a REJECTED decision ({@value Rejection#DUPLICATE_REQUEST_ID}) and a REJECTED terminal marked
 * {@code duplicate = true} (attempt 0), which readers never take as the first request's result.
 * A record whose key is not its request id, or that has no key, is answered the same way and not
 * run: claims are per partition, and such a record is not in its id's partition, so running it
 * would let one id run twice (once keyed, once not).
 *
 * <p>Residency is applied here, once: a valid request's allowed regions are narrowed to those its
 * tenant also allows ({@link Residency#constrain}), and the narrowed list is written into the
 * request that goes on, so every later decision (parked retries, re-placement from a silent
 * region) routes within it. A request whose regions and its tenant's have none in common is
 * REJECTED ({@value Rejection#RESIDENCY}).
 */
public final class RequestIntake implements Processor<byte[], byte[], Object, Object> {
    private static final Logger LOG = LoggerFactory.getLogger(RequestIntake.class);
    private static final int MAX_ERROR_CHARS = 1_000;

    private final String requestsTopic;
    /** With topics per tenant, the tenant of each requests topic; null with one requests topic. */
    private final KvrouteTopics tenantTopics;
    private final Deserializer<InferenceRequest> deserializer;
    private final RequestValidator validator;
    private final String policy;
    private final RouterMetrics metrics;
    private final long dedupRetentionMs;
    private final Residency residency;
    private final String next;
    private ProcessorContext<Object, Object> context;
    private AcceptedRequestIds accepted;

    public RequestIntake(String requestsTopic, Deserializer<InferenceRequest> deserializer, RequestValidator validator,
                         String policy, RouterMetrics metrics, long dedupRetentionMs) {
        this(requestsTopic, deserializer, validator, policy, metrics, dedupRetentionMs, Residency.none(), TopologyNames.ROUTER, null);
    }

    /**
     * @param next         the node valid requests go to: the router, or the admission sink
     * @param tenantTopics with topics per tenant, the deployment's topics (the tenant is the requests topic's); else null
     */
    public RequestIntake(String requestsTopic, Deserializer<InferenceRequest> deserializer, RequestValidator validator,
                         String policy, RouterMetrics metrics, long dedupRetentionMs, Residency residency, String next,
                         KvrouteTopics tenantTopics) {
        this.tenantTopics = tenantTopics;
        this.residency = residency;
        this.next = next;
        this.requestsTopic = requestsTopic;
        this.deserializer = deserializer;
        this.validator = validator;
        this.policy = policy;
        this.metrics = metrics;
        this.dedupRetentionMs = dedupRetentionMs;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
        this.accepted = new AcceptedRequestIds(context.getStateStore(TopologyNames.ACCEPTED_IDS_STORE), dedupRetentionMs);
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        String key = readableKey(record.key());
        String topicTenant = tenantTopics == null ? null
                : tenantTopics.tenantOf("requests", context.recordMetadata().map(RecordMetadata::topic).orElse(null));
        InferenceRequest request;
        try {
            request = deserializer.deserialize(requestsTopic, record.value());
            if (request == null) {
                throw new IllegalArgumentException("record has no value (tombstone)");
            }
        } catch (RuntimeException e) {
            if (SchemaRegistryException.isOutage(e)) {
                throw e;
            }
            deadLetter(record, key, topicTenant, e);
            return;
        }
        long now = context.currentSystemTimeMs();
        String id = request.getRequestId() != null && !request.getRequestId().isBlank() ? request.getRequestId() : key;
        // whether the request is still as decoded when it goes on (intake fills in a tenant, narrows regions)
        boolean asDecoded = tenantTopics == null || (request.getTenant() != null && !request.getTenant().isEmpty());
        if (tenantTopics != null && !claimsItsTopicsTenant(request, topicTenant)) {
            // not claimed: a tenant cannot take an id, or a quota, in another tenant's name; the answer goes to the
            // sender's own responses topic only, so it is a plain REJECTED that its client takes as the result
            String why = "the request names tenant '" + request.getTenant() + "' but was written to "
                    + (topicTenant == null ? "a topic of no tenant" : "the requests topic of tenant '" + topicTenant + "'")
                    + ": with topics per tenant the tenant is the topic's";
            if (id == null) {
                deadLetter(record, null, topicTenant, new IllegalArgumentException(why));
            } else {
                reject(id, request, topicTenant, new Rejection(Rejection.TENANT_MISMATCH, why), record.timestamp(), now);
            }
            return;
        }
        String tenant = tenantTopics != null ? topicTenant : request.getTenant();
        if (id != null && !id.equals(key)) {
            // not claimed: the id's claim lives in the partition of its own key, which this may not be
            rejectMisKeyed(id, key, request, tenant, record.timestamp(), now);
            return;
        }
        if (id != null && isDuplicate(id, request, tenant, record.timestamp(), now)) {
            return;
        }
        Optional<Rejection> rejection = validator.validate(request, now);
        if (rejection.isEmpty()) {
            RouteRequest route = Conversions.toRouteRequest(request);
            Optional<RouteRequest> constrained = residency.constrain(route);
            if (constrained.isEmpty()) {
                reject(id, request, tenant, new Rejection(Rejection.RESIDENCY, residency.conflict(route)), record.timestamp(), now);
                return;
            }
            if (!constrained.get().allowedRegions().equals(route.allowedRegions())) {
                request.setAllowedRegions(new ArrayList<>(new TreeSet<>(constrained.get().allowedRegions())));
                asDecoded = false;
            }
            if (asDecoded) {
                RequestWire.offer(request, record.value()); // its dispatch record can reuse these bytes
            }
            // admission is partitioned by tenant, so that one task owns each tenant's quota
            String forwardKey = next.equals(TopologyNames.ADMISSION_REQUEST_SINK) ? Conversions.nullToEmpty(request.getTenant()) : id;
            context.forward(new Record<Object, Object>(forwardKey, request, record.timestamp(), new RecordHeaders()), next);
            return;
        }
        if (id == null) {
            deadLetter(record, null, tenant, new IllegalArgumentException(rejection.get().reason()));
            return;
        }
        reject(id, request, tenant, rejection.get(), record.timestamp(), now);
    }

    /** With topics per tenant: a request names no tenant (it gets its topic's) or its topic's. */
    private static boolean claimsItsTopicsTenant(InferenceRequest request, String topicTenant) {
        if (topicTenant == null) {
            return false;
        }
        if (request.getTenant() == null || request.getTenant().isEmpty()) {
            request.setTenant(topicTenant);
        }
        return request.getTenant().equals(topicTenant);
    }

    private void reject(String id, InferenceRequest request, String tenant, Rejection rejection, long timestamp, long now) {
        metrics.rejected(rejection.kind());
        LOG.info("rejected request {}: {}", id, rejection.reason());
        ResponseEvent answer = Conversions.terminal(id, request, ResponseStatus.REJECTED, rejection.reason(), now);
        answer.setTenant(tenant); // whom it answers: with topics per tenant the topic's, not what the record claimed
        context.forward(new Record<Object, Object>(id, answer, timestamp, new RecordHeaders()), TopologyNames.RESPONSES_SINK);
        context.forward(new Record<Object, Object>(id, Conversions.refusedDecision(id, request, DecisionOutcome.REJECTED, policy, 0,
                rejection.reason(), now), timestamp, new RecordHeaders()), TopologyNames.DECISIONS_SINK);
    }

    /** Answers a record whose key is not its request id (or is null), as one that does not claim its id. */
    private void rejectMisKeyed(String id, String key, InferenceRequest request, String tenant, long timestamp, long now) {
        String keyed = key == null ? "record has no key" : "record key '" + key + "' is not the request id '" + id + "'";
        rejectUnclaimed(id, request, tenant, new Rejection(Rejection.KEY_MISMATCH, keyed + ": the key must equal the request id"
                + " (the client library keys requests so); this record is not run and its id is not claimed"), timestamp, now);
    }

    /**
     * Answers a record that does not claim its id: its REJECTED is marked {@code duplicate} (attempt 0), so no reader
     * takes it as the result of the request the id names, which may be someone else's.
     */
    private void rejectUnclaimed(String id, InferenceRequest request, String tenant, Rejection rejection, long timestamp, long now) {
        metrics.rejected(rejection.kind());
        LOG.info("rejected a record naming request {}: {}", id, rejection.reason());
        ResponseEvent answer = Conversions.duplicateTerminal(id, request, rejection.reason(), now);
        answer.setTenant(tenant); // whom it answers, not what the record claimed
        context.forward(new Record<Object, Object>(id, answer, timestamp, new RecordHeaders()), TopologyNames.RESPONSES_SINK);
        context.forward(new Record<Object, Object>(id, Conversions.refusedDecision(id, request, DecisionOutcome.REJECTED, policy, 0,
                rejection.reason(), now), timestamp, new RecordHeaders()), TopologyNames.DECISIONS_SINK);
    }

    private void deadLetter(Record<byte[], byte[]> record, String key, String tenant, Exception error) {
        long now = context.currentSystemTimeMs();
        String message = truncate(String.valueOf(error.getMessage()));
        Optional<RecordMetadata> source = context.recordMetadata();
        Headers headers = DeadLetterHeaders.add(new RecordHeaders(record.headers().toArray()),
                source.map(RecordMetadata::topic).orElse(requestsTopic), source.map(RecordMetadata::partition).orElse(-1),
                source.map(RecordMetadata::offset).orElse(-1L), error, message, now);
        context.forward(new Record<Object, Object>(record.key(), record.value(), record.timestamp(), headers), TopologyNames.DLQ_SINK);
        metrics.deadLettered();
        LOG.warn("dead-lettered a request record (key {}, {} bytes) at {}: {}", key == null ? "unreadable" : key,
                record.value() == null ? 0 : record.value().length,
                source.map(m -> m.topic() + "-" + m.partition() + "@" + m.offset()).orElse("?"), message);
        if (key != null && !isDuplicate(key, null, tenant, record.timestamp(), now)) {
            reject(key, null, tenant, new Rejection(Rejection.UNDECODABLE, message), record.timestamp(), now);
        }
    }

    /** Claims {@code id}; if an earlier request holds it, answers this one as a duplicate and returns true. */
    private boolean isDuplicate(String id, InferenceRequest request, String tenant, long timestamp, long now) {
        OptionalLong acceptedAt = accepted.claim(id, now);
        if (acceptedAt.isEmpty()) {
            return false;
        }
        Rejection rejection = new Rejection(Rejection.DUPLICATE_REQUEST_ID, "duplicate request id: a request with id " + id
                + " was accepted at " + acceptedAt.getAsLong() + "; the first one keeps it and this one is not run");
        metrics.rejected(rejection.kind());
        LOG.warn("rejected a duplicate of request {} (first accepted at {})", id, acceptedAt.getAsLong());
        ResponseEvent answer = Conversions.duplicateTerminal(id, request, rejection.reason(), now);
        answer.setTenant(tenant); // whom it answers, not what the record claimed
        context.forward(new Record<Object, Object>(id, answer, timestamp, new RecordHeaders()), TopologyNames.RESPONSES_SINK);
        context.forward(new Record<Object, Object>(id, Conversions.refusedDecision(id, request, DecisionOutcome.REJECTED, policy, 0,
                rejection.reason(), now), timestamp, new RecordHeaders()), TopologyNames.DECISIONS_SINK);
        return true;
    }

    /** The key as a request id: strict UTF-8, not blank; null otherwise. */
    public static String readableKey(byte[] key) {
        if (key == null || key.length == 0) {
            return null;
        }
        try {
            String s = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(key)).toString();
            if (s.isBlank() || s.chars().anyMatch(Character::isISOControl)) {
                return null;
            }
            return s;
        } catch (CharacterCodingException e) {
            return null;
        }
    }


    private static String truncate(String s) {
        return s.length() <= MAX_ERROR_CHARS ? s : s.substring(0, MAX_ERROR_CHARS) + "...";
    }
}
