package io.kvroute.router.config;

import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The batch size of the router's producer, worked out at start-up from the partitions it writes. Larger batches cut
 * the router's and the broker's CPU per routed request (a dispatch record carries its prompt, ~2 KB, so Kafka's 16 KiB
 * default holds seven): {@code kvroute loadtest --workers 8}, 16 KiB against 256 KiB, measured 285 against 171 µs of
 * router CPU and 180 against 79 µs of broker CPU per request. But each partition a transaction writes holds an open
 * batch of that size in the producer's buffer, and a full buffer blocks the routing thread; so half the buffer is
 * shared out over those partitions, between 16 KiB and 256 KiB. Given {@code kafka.batch.size} or
 * {@code kafka.producer.batch.size} win.
 */
public final class ProducerBatchSize {
    public static final int MIN_BYTES = 16 * 1024;
    public static final int MAX_BYTES = 256 * 1024;
    private static final long DEFAULT_BUFFER_MEMORY = 32L * 1024 * 1024;

    private ProducerBatchSize() {
    }

    /**
     * The batch size for a producer of {@code bufferMemory} bytes writing {@code partitions} partitions, in whole KiB.
     * Not rounded down to a power of two: that nearly halved it at 125 worker processes (64 against 112 KiB), below
     * what a backlogged transaction writes to one partition there (by arithmetic, ~8,000 dispatches a second of ~2.2 KB
     * over 127 partitions for 500 ms: ~69 KB); 112 KiB measured 45-54 against 62-78 µs of broker and 121-149 against
     * 146-190 µs of router CPU per routed request (three runs each, interleaved,
     * {@code kvroute loadtest --requests 50000 --workers 1000 --no-copy}).
     */
    public static int forPartitions(int partitions, long bufferMemory) {
        long share = bufferMemory / (2L * Math.max(1, partitions));
        long bounded = Math.max(MIN_BYTES, Math.min(MAX_BYTES, share));
        return (int) (bounded / 1024 * 1024);
    }

    /** Sets the producer's batch size in Kafka Streams properties {@code p} unless they give one. */
    public static void apply(Properties p, int partitions) {
        String key = StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG);
        if (p.containsKey(ProducerConfig.BATCH_SIZE_CONFIG) || p.containsKey(key)) {
            return;
        }
        Object memory = p.getOrDefault(StreamsConfig.producerPrefix(ProducerConfig.BUFFER_MEMORY_CONFIG),
                p.get(ProducerConfig.BUFFER_MEMORY_CONFIG));
        long bufferMemory = memory == null ? DEFAULT_BUFFER_MEMORY : Long.parseLong(memory.toString().trim());
        p.put(key, Integer.toString(forPartitions(partitions, bufferMemory)));
    }
}
