package io.kvroute.platform.kafka.transactions;

import java.util.Optional;
import org.apache.kafka.clients.admin.TransactionState;

/**
 * An open transaction found hanging, with what its coordinator said of the producer when it was
 * found (absent: the coordinator does not know the producer, or could not be asked).
 */
public record HangingTransaction(OpenTransaction open, Optional<CoordinatorTransaction> coordinator) {

    /** True when the coordinator's last word on this producer's transaction was a commit. */
    public boolean coordinatorCommitted() {
        return coordinator.map(c -> c.state() == TransactionState.COMPLETE_COMMIT
                || c.state() == TransactionState.PREPARE_COMMIT).orElse(false);
    }

    @Override
    public String toString() {
        return open + coordinator.map(c -> " (coordinator: " + c.transactionalId() + " " + c.state() + " at epoch "
                + c.producerEpoch() + ")").orElse(" (coordinator: producer unknown)");
    }
}
