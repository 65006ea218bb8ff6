package io.kvroute.router.topology.internal;

import io.kvroute.schemas.registry.SchemaRegistryException;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.topics.ResponseHeaders;
import io.kvroute.schemas.v1.CancelRequest;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * With topics per tenant, passes each tenant's cancels ({@code <prefix>.cancellations.<tenant>}) on to the
 * cancellations topic that the router and workers follow, which then only the router writes. What a tenant may not
 * do is dropped with a warning: a re-placement marker (it would void a run), a tombstone (it would take back a cancel),
 * a record whose key is not its request id, or one that does not decode. The record goes on as written, with the
 * tenant its topic names in a {@link ResponseHeaders#TENANT} header.
 */
public final class TenantCancelForwarder implements Processor<String, byte[], String, byte[]> {
    private static final Logger LOG = LoggerFactory.getLogger(TenantCancelForwarder.class);

    private final KvrouteTopics topics;
    private final Deserializer<CancelRequest> deserializer;
    private final String sink;
    private ProcessorContext<String, byte[]> context;

    public TenantCancelForwarder(KvrouteTopics topics, Deserializer<CancelRequest> deserializer, String sink) {
        this.topics = topics;
        this.deserializer = deserializer;
        this.sink = sink;
    }

    @Override
    public void init(ProcessorContext<String, byte[]> context) {
        this.context = context;
    }

    @Override
    public void process(Record<String, byte[]> record) {
        String topic = context.recordMetadata().map(RecordMetadata::topic).orElse(null);
        String tenant = topics.tenantOf("cancellations", topic);
        String refused = refusal(record, tenant, topic);
        if (refused != null) {
            LOG.warn("dropped a cancel record on {} (key {}): {}", topic, record.key(), refused);
            return;
        }
        context.forward(new Record<>(record.key(), record.value(), record.timestamp(),
                ResponseHeaders.withTenant(new RecordHeaders(), tenant)), sink);
    }

    /** Why the record may not go on, or null. */
    private String refusal(Record<String, byte[]> record, String tenant, String topic) {
        if (tenant == null) {
            return "not a tenant's cancellations topic";
        }
        if (record.key() == null || record.key().isBlank()) {
            return "no request id key";
        }
        if (record.value() == null) {
            return "a tombstone: a tenant cannot take a cancel back";
        }
        CancelRequest cancel;
        try {
            cancel = deserializer.deserialize(topic, record.value());
        } catch (RuntimeException e) {
            if (SchemaRegistryException.isOutage(e)) {
                throw e;
            }
            return "undecodable: " + e.getMessage();
        }
        if (cancel == null || !record.key().equals(cancel.getRequestId())) {
            return "the key is not the cancel's request id";
        }
        if (cancel.getSupersedesBelowAttempt() != null) {
            return "a re-placement marker: only the router writes those";
        }
        return null;
    }
}
