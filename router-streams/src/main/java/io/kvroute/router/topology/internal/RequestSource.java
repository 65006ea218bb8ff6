package io.kvroute.router.topology.internal;

/** Where a request record is: its topic, partition and offset (the requests topic, or the admitted one). */
public record RequestSource(String topic, int partition, long offset) {
    @Override
    public String toString() {
        return topic + "-" + partition + "@" + offset;
    }
}
