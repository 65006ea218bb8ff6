package io.kvroute.platform.kafka.transactions;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class HangingTransactionRuleTest {
    private static final TopicPartition RESPONSES_2 = new TopicPartition("kvroute.responses", 2);
    private static final TopicPartition OFFSETS_1 = new TopicPartition("__consumer_offsets", 1);
    private static final long TIMEOUT_MS = 10_000;
    private static final long GRACE_MS = 5_000;
    private static final long UNKNOWN_TIMEOUT_MS = 900_000;

    private final HangingTransactionRule rule = new HangingTransactionRule(GRACE_MS, UNKNOWN_TIMEOUT_MS);
    private final OpenTransaction open = new OpenTransaction(RESPONSES_2, 13, (short) 6, 0, 95, 1_000);

    @Test
    void shouldCallHangingATransactionItsCoordinatorHasFinishedOnceItOutlivesItsTimeout() {
        Optional<CoordinatorTransaction> finished = coordinator(TransactionState.EMPTY, Set.of());

        assertThat(rule.isHanging(open, finished, 1_000 + TIMEOUT_MS + GRACE_MS + 1)).isTrue();
        assertThat(rule.isHanging(open, finished, 1_000 + TIMEOUT_MS + GRACE_MS)).isFalse();
    }

    @Test
    void shouldNeverCallHangingATransactionTheCoordinatorStillCountsThisPartitionIn() {
        for (TransactionState state : Set.of(TransactionState.ONGOING, TransactionState.PREPARE_COMMIT,
                TransactionState.PREPARE_ABORT, TransactionState.PREPARE_EPOCH_FENCE)) {
            assertThat(rule.isHanging(open, coordinator(state, Set.of(RESPONSES_2, OFFSETS_1)), Long.MAX_VALUE / 2))
                    .as(state.toString()).isFalse();
        }
    }

    @Test
    void shouldCallHangingAnOldTransactionTheCoordinatorRunsOnOtherPartitionsOnly() {
        Optional<CoordinatorTransaction> elsewhere = coordinator(TransactionState.ONGOING, Set.of(OFFSETS_1));

        assertThat(rule.isHanging(open, elsewhere, 1_000 + TIMEOUT_MS + GRACE_MS + 1)).isTrue();
    }

    @Test
    void shouldLeaveAloneWhatTheCoordinatorCannotDescribe() {
        assertThat(rule.isHanging(open, coordinator(TransactionState.UNKNOWN, Set.of()), Long.MAX_VALUE / 2)).isFalse();
    }

    @Test
    void shouldWaitTheBrokersLongestTimeoutForAProducerTheCoordinatorDoesNotKnow() {
        assertThat(rule.isHanging(open, Optional.empty(), 1_000 + UNKNOWN_TIMEOUT_MS + GRACE_MS)).isFalse();
        assertThat(rule.isHanging(open, Optional.empty(), 1_000 + UNKNOWN_TIMEOUT_MS + GRACE_MS + 1)).isTrue();
    }

    private static Optional<CoordinatorTransaction> coordinator(TransactionState state, Set<TopicPartition> partitions) {
        return Optional.of(new CoordinatorTransaction("kvroute-worker-ap-south-1", state, (short) 9, partitions, TIMEOUT_MS));
    }
}
