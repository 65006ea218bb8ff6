package io.kvroute.platform.kafka.transactions;

import java.util.Optional;

/**
 * Decides whether a transaction a partition holds open is hanging: nobody will ever end it, so
 * only an administrative abort releases the partition's readers.
 *
 * <p>It is hanging when its coordinator no longer counts this partition in an unfinished
 * transaction of that producer (the coordinator finished the transaction, or forgot the producer)
 * and the producer has not written to the partition for longer than its transaction timeout plus
 * a grace period (a transaction cannot legitimately stay open that long after its last write:
 * its coordinator would have aborted it). The age condition keeps the rule away from a
 * transaction whose markers are simply on their way.
 * We saw the coordinator-finished case after a single-node KRaft broker was killed and restarted
 * twice in quick succession: its transaction coordinator, loading state while the partitions had
 * no leader, skipped the commit markers ("partitions are likely deleted") and the partitions kept
 * the transaction open for good.
 */
public final class HangingTransactionRule {
    /** Kafka's default {@code transaction.max.timeout.ms}: the longest any producer may keep a transaction. */
    public static final long KAFKA_DEFAULT_MAX_TRANSACTION_TIMEOUT_MS = 900_000;

    private final long graceMs;
    private final long unknownTimeoutMs;

    /**
     * @param graceMs          how much longer than its timeout a transaction may stay open
     * @param unknownTimeoutMs the timeout assumed when the coordinator does not know the producer
     *                         (the broker's {@code transaction.max.timeout.ms}, 15 min by default)
     */
    public HangingTransactionRule(long graceMs, long unknownTimeoutMs) {
        if (graceMs < 0 || unknownTimeoutMs < 0) {
            throw new IllegalArgumentException("grace and timeout must not be negative: " + graceMs + ", " + unknownTimeoutMs);
        }
        this.graceMs = graceMs;
        this.unknownTimeoutMs = unknownTimeoutMs;
    }

    public boolean isHanging(OpenTransaction open, Optional<CoordinatorTransaction> coordinator, long nowMs) {
        if (coordinator.isPresent() && coordinator.get().stillFinishing(open.partition())) {
            return false;
        }
        long timeoutMs = coordinator.map(CoordinatorTransaction::timeoutMs).orElse(unknownTimeoutMs);
        return nowMs - open.lastWriteMs() > timeoutMs + graceMs;
    }
}
