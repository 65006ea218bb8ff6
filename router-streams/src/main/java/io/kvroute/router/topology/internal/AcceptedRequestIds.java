package io.kvroute.router.topology.internal;

import java.util.OptionalLong;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * The request ids this routing task has accepted, with when, in the windowed store
 * {@value TopologyNames#ACCEPTED_IDS_STORE}: the first request record carrying an id claims it,
 * whatever its outcome, so every id gets exactly one answer that is not a duplicate rejection.
 * The store is local to the requests partition (requests are keyed by request id), backed by a
 * changelog so a restarted or moved task keeps it, and segmented by time so an id is forgotten
 * {@code retentionMs} after it was accepted instead of the store growing forever.
 */
public final class AcceptedRequestIds {
    private final WindowStore<String, Long> store;
    private final long retentionMs;

    public AcceptedRequestIds(WindowStore<String, Long> store, long retentionMs) {
        this.store = store;
        this.retentionMs = retentionMs;
    }

    /** When {@code requestId} was first accepted, if within the retention; empty if never (or forgotten). */
    public OptionalLong acceptedAt(String requestId, long nowMs) {
        // up to the end of time, not nowMs: another instance whose clock ran ahead may have claimed it
        try (WindowStoreIterator<Long> it = store.fetch(requestId, Math.max(0, nowMs - retentionMs), Long.MAX_VALUE)) {
            return it.hasNext() ? OptionalLong.of(it.next().value) : OptionalLong.empty();
        }
    }

    /** Claims {@code requestId}; returns empty if it was free (now taken), else when it was first accepted. */
    public OptionalLong claim(String requestId, long nowMs) {
        OptionalLong earlier = acceptedAt(requestId, nowMs);
        if (earlier.isEmpty()) {
            store.put(requestId, nowMs, nowMs);
        }
        return earlier;
    }
}
