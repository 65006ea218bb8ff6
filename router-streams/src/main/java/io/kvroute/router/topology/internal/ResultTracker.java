package io.kvroute.router.topology.internal;

import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forgets a dispatched request once its result is on the responses topic: removes it from the
 * {@value TopologyNames#IN_FLIGHT_STORE} store, so only requests still waiting or running are
 * candidates for re-placement. The responses topic is keyed and partitioned like the requests
 * topic, so a request's result reaches the task that dispatched it. A terminal of an attempt
 * older than the one in the store (a run that was re-placed meanwhile) does not count; events
 * that do not decode are skipped (they are for readers, not for the router).
 */
public final class ResultTracker implements Processor<String, byte[], Void, Void> {
    private static final Logger LOG = LoggerFactory.getLogger(ResultTracker.class);

    private final String responsesTopic;
    private final Deserializer<ResponseEvent> deserializer;
    private KeyValueStore<String, DispatchedRequest> inFlight;

    public ResultTracker(String responsesTopic, Deserializer<ResponseEvent> deserializer) {
        this.responsesTopic = responsesTopic;
        this.deserializer = deserializer;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        inFlight = context.getStateStore(TopologyNames.IN_FLIGHT_STORE);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        if (record.key() == null || record.value() == null) {
            return;
        }
        ResponseEvent event;
        try {
            event = deserializer.deserialize(responsesTopic, record.value());
        } catch (RuntimeException e) {
            LOG.debug("skipped an undecodable response event for {}: {}", record.key(), e.toString());
            return;
        }
        if (event == null || event.getTerminal() == null || event.getDuplicate()) {
            return;
        }
        DispatchedRequest dispatched = inFlight.get(record.key());
        if (dispatched != null && endsDispatchAttempt(event.getAttempt(), dispatched.getAttempt())) {
            inFlight.delete(record.key());
        }
    }

    /**
     * A worker's run attempt carries its dispatch attempt in the high 16 bits; the router's own
     * terminals (REJECTED, EXPIRED, CANCELLED before any run) have none there, or the dispatch
     * attempt they answer.
     */
    static boolean endsDispatchAttempt(int terminalAttempt, int dispatchAttempt) {
        int dispatchPart = terminalAttempt >>> 16;
        return dispatchPart == 0 || dispatchPart >= dispatchAttempt;
    }
}
