package io.kvroute.router.topology.internal;

import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecordBase;

/**
 * The router's in-flight entries without the prompt: what re-placement, hand-backs, expiry and
 * results need of a dispatched request is kept (ids, tenant, sizes, prefix hashes, deadlines), and
 * its prompt or messages are read back from the request record when it must be placed again, which
 * is rare. The dispatch record already carries the whole request to the worker; writing it again
 * to the in-flight store's changelog doubled the router's bytes per request (issue 23: 2.1 KB of
 * 5.3 KB per routed request in a loadtest).
 */
final class InFlightEntries {
    private InFlightEntries() {
    }

    /**
     * {@code dispatched} as the in-flight store keeps it: without prompt and messages, and where to read them back.
     * Built from shallow copies (it runs for every routed request, and is serialized at once by the store): Avro's
     * copying builders would deep-copy the request twice, prompt included, only to drop it.
     */
    static DispatchedRequest slim(DispatchedRequest dispatched, RequestSource source) {
        InferenceRequest request = shallowCopy(dispatched.getRequest(), new InferenceRequest());
        request.setPrompt(null);
        request.setMessages(null);
        DispatchedRequest entry = shallowCopy(dispatched, new DispatchedRequest());
        entry.setRequest(request);
        entry.setSourceTopic(source.topic());
        entry.setSourcePartition(source.partition());
        entry.setSourceOffset(source.offset());
        return entry;
    }

    private static <T extends SpecificRecordBase> T shallowCopy(T from, T into) {
        for (Schema.Field field : from.getSchema().getFields()) {
            into.put(field.pos(), from.get(field.pos()));
        }
        return into;
    }

    /** Where the entry's request record is, or null for an entry that keeps the whole request. */
    static RequestSource sourceOf(DispatchedRequest entry) {
        return entry.getSourceTopic() == null ? null
                : new RequestSource(entry.getSourceTopic().toString(), entry.getSourcePartition(), entry.getSourceOffset());
    }

    /** The entry's request, whole: as kept, or with its prompt and messages read back from its record. */
    static InferenceRequest whole(DispatchedRequest entry, RequestReader reader) {
        RequestSource source = sourceOf(entry);
        InferenceRequest kept = entry.getRequest();
        if (source == null) {
            return kept;
        }
        return withContent(kept, reader.read(source, kept.getRequestId().toString()));
    }

    /** {@code kept} with the prompt and messages of its {@code record}: the rest as the router kept it (intake narrows allowed regions, for one). */
    static InferenceRequest withContent(InferenceRequest kept, InferenceRequest record) {
        return InferenceRequest.newBuilder(kept).setPrompt(record.getPrompt()).setMessages(record.getMessages()).build();
    }
}
