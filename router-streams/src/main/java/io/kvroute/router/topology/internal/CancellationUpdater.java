package io.kvroute.router.topology.internal;

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
 * tombstone withdraws the cancel.
 */
public final class CancellationUpdater implements Processor<String, byte[], Void, Void> {
    private static final Logger LOG = LoggerFactory.getLogger(CancellationUpdater.class);

    private KeyValueStore<String, byte[]> cancelled;

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
        } else {
            cancelled.put(record.key(), record.value());
        }
    }
}
