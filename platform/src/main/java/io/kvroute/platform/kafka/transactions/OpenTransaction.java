package io.kvroute.platform.kafka.transactions;

import org.apache.kafka.common.TopicPartition;

/**
 * A transaction a partition still holds open: what {@code DescribeProducers} reports for one
 * producer whose transaction on this partition has no commit or abort marker yet. Until it gets
 * one, the partition's last stable offset stays at {@code startOffset} and every
 * {@code read_committed} reader stops there.
 */
public record OpenTransaction(
        TopicPartition partition,
        long producerId,
        short producerEpoch,
        int coordinatorEpoch,
        long startOffset,
        long lastWriteMs) {

    @Override
    public String toString() {
        return partition + " producer " + producerId + "/" + producerEpoch + " open since offset " + startOffset;
    }
}
