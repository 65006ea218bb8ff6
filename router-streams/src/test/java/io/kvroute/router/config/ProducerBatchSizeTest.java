package io.kvroute.router.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class ProducerBatchSizeTest {
    private static final long MIB = 1024 * 1024;

    @Test
    void shouldShareHalfTheBufferOverThePartitionsWrittenWithinBounds() {
        assertThat(ProducerBatchSize.forPartitions(28, 32 * MIB)).as("8 workers").isEqualTo(256 * 1024);
        assertThat(ProducerBatchSize.forPartitions(146, 32 * MIB)).as("125 worker processes: 112.2 KiB, whole KiB").isEqualTo(112 * 1024);
        assertThat(ProducerBatchSize.forPartitions(1020, 32 * MIB)).as("1,000 partitions").isEqualTo(16 * 1024);
        assertThat(ProducerBatchSize.forPartitions(0, 32 * MIB)).isEqualTo(256 * 1024);
        assertThat(ProducerBatchSize.forPartitions(1020, 256 * MIB)).isEqualTo(128 * 1024);
    }

    @Test
    void shouldSetTheProducersBatchSizeUnlessGivenAndReadAGivenBuffer() {
        Properties p = new Properties();
        ProducerBatchSize.apply(p, 28);
        assertThat(p).containsEntry("producer.batch.size", "262144");

        Properties given = new Properties();
        given.put("batch.size", "32768");
        ProducerBatchSize.apply(given, 28);
        assertThat(given).doesNotContainKey("producer.batch.size");

        Properties small = new Properties();
        small.put("producer.buffer.memory", Long.toString(4 * MIB));
        ProducerBatchSize.apply(small, 28);
        assertThat(small).as("73.1 KiB, whole KiB").containsEntry("producer.batch.size", Integer.toString(73 * 1024));
    }
}
