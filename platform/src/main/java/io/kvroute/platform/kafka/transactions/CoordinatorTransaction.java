package io.kvroute.platform.kafka.transactions;

import java.util.Set;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;

/**
 * What the transaction coordinator knows of a producer: its transactional id, the state of its
 * current (or last) transaction, and the partitions that transaction covers.
 */
public record CoordinatorTransaction(
        String transactionalId,
        TransactionState state,
        short producerEpoch,
        Set<TopicPartition> partitions,
        long timeoutMs) {

    /** States in which the coordinator still owns the transaction: it will commit, abort or time it out. */
    private static final Set<TransactionState> UNFINISHED = Set.of(TransactionState.ONGOING,
            TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT, TransactionState.PREPARE_EPOCH_FENCE);

    /** True if the coordinator may still end the transaction on {@code partition} (a state it cannot name counts as may). */
    public boolean stillFinishing(TopicPartition partition) {
        return state == TransactionState.UNKNOWN || UNFINISHED.contains(state) && partitions.contains(partition);
    }
}
