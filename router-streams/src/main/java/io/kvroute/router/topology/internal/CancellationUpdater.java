package io.kvroute.router.topology.internal;

import io.kvroute.schemas.topics.CancelHeaders;
import io.kvroute.schemas.v1.CancelRequest;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the global store {@value TopologyNames#CANCELLATIONS_STORE} of cancelled request ids from
 * the compacted cancellations topic, on the global-store thread. Only the key matters (a request
 * is cancelled if its id is in the store), so the value is kept as the record's bytes, undecoded:
 * a cancel whose value cannot be decoded still cancels. A record without a key is skipped; a
 * tombstone withdraws the cancel. The router's own re-placement markers ({@code
 * supersedesBelowAttempt} set) void old attempts only: they do not cancel the request. They are
 * known by their header ({@link CancelHeaders}) without decoding; a record without it is decoded.
 */
public final class CancellationUpdater implements Processor<String, byte[], Void, Void> {
    private static final Logger LOG = LoggerFactory.getLogger(CancellationUpdater.class);

    private final String topic;
    private final Deserializer<CancelRequest> deserializer;
    private KeyValueStore<String, byte[]> cancelled;

    public CancellationUpdater(String topic, Deserializer<CancelRequest> deserializer) {
        this.topic = topic;
        this.deserializer = deserializer;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        cancelled = context.getStateStore(TopologyNames.CANCELLATIONS_STORE);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        if (record.key() == null || record.key().isBlank()) {
            LOG.warn("skipped a cancel event without a request id key");
            return;
        }
        if (record.value() == null) {
            cancelled.delete(record.key());
        } else if (CancelHeaders.isSupersede(record.headers())) {
            LOG.debug("request {} was re-placed; older attempts are void", record.key());
        } else {
            CancelRequest cancel = decoded(record.value());
            if (cancel != null && cancel.getSupersedesBelowAttempt() != null) {
                LOG.debug("request {} was re-placed; older attempts are void", record.key());
            } else {
                // one that does not decode still cancels, of any tenant
                cancelled.put(record.key(), CancelledEntry.of(cancel == null ? null : cancel.getTenant(), record.value()));
            }
        }
    }

    private CancelRequest decoded(byte[] value) {
        try {
            return deserializer.deserialize(topic, value);
        } catch (RuntimeException e) {
            return null;
        }
    }
}
