package io.kvroute.router.topology.internal;

import io.kvroute.schemas.registry.SchemaRegistryException;
import io.kvroute.schemas.topics.KvrouteTopics;
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
 * a record whose key is not its request id, or one that does not decode. The cancel goes on with its {@code tenant}
 * set to the one its topic names (whatever the tenant wrote there), so the router and workers apply it to a request
 * of that tenant only.
 */
public final class TenantCancelForwarder implements Processor<String, byte[], String, CancelRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(TenantCancelForwarder.class);

    private final KvrouteTopics topics;
    private final Deserializer<CancelRequest> deserializer;
    private final String sink;
    private ProcessorContext<String, CancelRequest> context;

    public TenantCancelForwarder(KvrouteTopics topics, Deserializer<CancelRequest> deserializer, String sink) {
        this.topics = topics;
        this.deserializer = deserializer;
        this.sink = sink;
    }

    @Override
    public void init(ProcessorContext<String, CancelRequest> context) {
        this.context = context;
    }

    @Override
    public void process(Record<String, byte[]> record) {
        String topic = context.recordMetadata().map(RecordMetadata::topic).orElse(null);
        String tenant = topics.tenantOf("cancellations", topic);
        String refused;
        CancelRequest cancel = null;
        if (tenant == null) {
            refused = "not a tenant's cancellations topic";
        } else if (record.key() == null || record.key().isBlank()) {
            refused = "no request id key";
        } else if (record.value() == null) {
            refused = "a tombstone: a tenant cannot take a cancel back";
        } else {
            try {
                cancel = deserializer.deserialize(topic, record.value());
                refused = cancel == null || !record.key().equals(cancel.getRequestId()) ? "the key is not the cancel's request id"
                        : cancel.getSupersedesBelowAttempt() != null ? "a re-placement marker: only the router writes those" : null;
            } catch (RuntimeException e) {
                if (SchemaRegistryException.isOutage(e)) {
                    throw e;
                }
                refused = "undecodable: " + e.getMessage();
            }
        }
        if (refused != null) {
            LOG.warn("dropped a cancel record on {} (key {}): {}", topic, record.key(), refused);
            return;
        }
        cancel.setTenant(tenant);
        context.forward(new Record<>(record.key(), cancel, record.timestamp(), new RecordHeaders()), sink);
    }
}
