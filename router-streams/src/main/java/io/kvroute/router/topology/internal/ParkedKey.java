package io.kvroute.router.topology.internal;

/**
 * Key of a parked request: its arrival sequence (zero-padded so the store's byte order is the
 * arrival order) and when it was parked.
 */
record ParkedKey(long sequence, long parkedAtMs) {

    String encode() {
        return String.format("%019d:%d", sequence, parkedAtMs);
    }

    static ParkedKey decode(String key) {
        int colon = key.indexOf(':');
        return new ParkedKey(Long.parseLong(key.substring(0, colon)), Long.parseLong(key.substring(colon + 1)));
    }
}
