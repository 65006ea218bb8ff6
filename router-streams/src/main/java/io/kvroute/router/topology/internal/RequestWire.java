package io.kvroute.router.topology.internal;

import io.kvroute.schemas.v1.InferenceRequest;

/**
 * The record bytes a request was decoded from, kept for the stream thread routing it: its dispatch record can then
 * carry the request's encoded body as it came ({@link DispatchSerializer}) instead of encoding its prompt again.
 * One slot per thread, holding the request intake forwarded last; it is matched by identity, so a request decoded
 * elsewhere, or a copy, is encoded as usual.
 *
 * <p>Intake offers a request only while it is as decoded (not when it filled in the tenant from a tenant's topic or
 * narrowed the regions to the tenant's residency); whoever changes a request after intake must {@link #forget} it
 * first. Nothing does today: the routing processor builds new records around it.
 */
final class RequestWire {
    private static final ThreadLocal<RequestWire> SLOT = ThreadLocal.withInitial(RequestWire::new);

    private InferenceRequest request;
    private byte[] record;

    private RequestWire() {
    }

    /** {@code request} was decoded from {@code record} (wire format: header, then its body) and is unchanged since. */
    static void offer(InferenceRequest request, byte[] record) {
        RequestWire slot = SLOT.get();
        slot.request = request;
        slot.record = record;
    }

    /** The record {@code request} was decoded from, if it is the one offered last on this thread; else null. */
    static byte[] recordOf(InferenceRequest request) {
        RequestWire slot = SLOT.get();
        return slot.request == request ? slot.record : null;
    }

    /** Drops {@code request}'s bytes: it is about to change. */
    static void forget(InferenceRequest request) {
        RequestWire slot = SLOT.get();
        if (slot.request == request) {
            slot.request = null;
            slot.record = null;
        }
    }
}
