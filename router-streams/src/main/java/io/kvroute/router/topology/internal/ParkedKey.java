package io.kvroute.router.topology.internal;

/**
 * Key of a parked request: its arrival sequence (zero-padded so the store's byte order is the
 * arrival order), when it was parked, and the dispatch attempt it will be placed as: 0 for a
 * request never dispatched (placed as attempt 1), else the attempt after a run that was handed
 * back. Keys of never-dispatched requests keep the two-part form written before attempts were.
 */
record ParkedKey(long sequence, long parkedAtMs, int dispatchAttempt) {

    ParkedKey(long sequence, long parkedAtMs) {
        this(sequence, parkedAtMs, 0);
    }

    String encode() {
        return dispatchAttempt == 0 ? String.format("%019d:%d", sequence, parkedAtMs)
                : String.format("%019d:%d:%d", sequence, parkedAtMs, dispatchAttempt);
    }

    static ParkedKey decode(String key) {
        String[] parts = key.split(":");
        return new ParkedKey(Long.parseLong(parts[0]), Long.parseLong(parts[1]), parts.length > 2 ? Integer.parseInt(parts[2]) : 0);
    }
}
