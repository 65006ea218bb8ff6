package io.kvroute.local.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class SplitTransactionsTest {
    /** The two lines a broker wrote in a CI run where it split a worker's transaction (Kafka 4.4). */
    private static final String SKIPPED = "2026-11-30 17:33:38,711 INFO TransactionMarkerChannelManager [Transaction Marker "
            + "Channel Manager 1]: Couldn't find leader endpoint for partitions Set(kvroute.responses-2, kvroute.responses-3, "
            + "kvroute.responses-0, __consumer_offsets-1) while trying to send transaction markers for kvroute-worker-ap-south-0, "
            + "these partitions are likely deleted already and hence can be skipped";
    private static final String ENDED = "2026-11-30 17:33:38,724 INFO TransactionStateManager [Transaction State Manager 1]: "
            + "TransactionalId kvroute-worker-ap-south-0 append transaction log for TxnTransitMetadata[producerId=7, "
            + "prevProducerId=7, nextProducerId=-1, producerEpoch=41, lastProducerEpoch=-1, txnTimeoutMs=10000, "
            + "txnState=COMPLETE_COMMIT, topicPartitions=[], txnStartTimestamp=1796060008177, txnLastUpdateTimestamp=1796060010404, "
            + "clientTransactionVersion=TV_2] transition failed due to NOT_COORDINATOR";

    @Test
    void shouldNameTheWorkerAndStartOfATransactionWhoseMarkersTheBrokerSkipped() {
        assertThat(SplitTransactions.parse(List.of("unrelated", SKIPPED, "more", ENDED), "kvroute-worker-"))
                .containsExactly(new SplitTransactions.Split("ap-south-0", 1_796_060_008_177L));
    }

    /** The skipped-markers line a broker wrote in a run where it split a router's transaction (Kafka 4.4), shortened. */
    @Test
    void shouldNameTheRouterThreadOfASplitTransactionWhenReadWithTheRoutersPrefix() {
        String router = "kvroute-router-af20787d-3564-4b30-91fe-deb00e848ef0-1";
        String skipped = "2026-12-01 06:26:30,316 INFO TransactionMarkerChannelManager [Transaction Marker Channel Manager 1]: "
                + "Couldn't find leader endpoint for partitions HashSet(kvroute-router-router-accepted-request-ids-changelog-2, "
                + "kvroute.decisions-2, __consumer_offsets-0, kvroute.dispatch.us-east-0) while trying to send transaction markers for "
                + router + ", these partitions are likely deleted already and hence can be skipped";
        String ended = ENDED.replace("kvroute-worker-ap-south-0", router).replace("1796060008177", "1796106380018");

        assertThat(SplitTransactions.parse(List.of(skipped, ended), "kvroute-router-"))
                .containsExactly(new SplitTransactions.Split("af20787d-3564-4b30-91fe-deb00e848ef0-1", 1_796_106_380_018L));
        assertThat(SplitTransactions.parse(List.of(skipped, ended), "kvroute-worker-")).isEmpty();
    }

    /**
     * A CI run where the coordinator, back from its restart, resent a half-ended transaction's markers, skipped them, and
     * resigned before recording the end (Kafka 4.4, lines shortened): the start is the resent transaction's.
     */
    @Test
    void shouldTakeTheStartFromTheResentMarkersWhenTheCoordinatorResignedBeforeRecordingTheEnd() {
        String resent = "2026-12-01 10:50:20,248 INFO TransactionStateManager [Transaction State Manager 1]: Sending txn markers for "
                + "TransactionalIdCoordinatorEpochAndTransitMetadata[transactionalId=kvroute-worker-ap-south-0, coordinatorEpoch=0, "
                + "result=COMMIT, txnMetadata=TransactionMetadata(transactionalId=kvroute-worker-ap-south-0, producerId=6, "
                + "prevProducerId=6, nextProducerId=-1, producerEpoch=14, lastProducerEpoch=-1, txnTimeoutMs=10000, "
                + "state=PREPARE_COMMIT, pendingState=Optional[COMPLETE_COMMIT], topicPartitions=[kvroute.responses-2, "
                + "__consumer_offsets-1], txnStartTimestamp=1796122215002, txnLastUpdateTimestamp=1796122215103, "
                + "clientTransactionVersion=TV_2), transitMetadata=TxnTransitMetadata[producerId=6, prevProducerId=6, "
                + "nextProducerId=-1, producerEpoch=14, lastProducerEpoch=-1, txnTimeoutMs=10000, txnState=COMPLETE_COMMIT, "
                + "topicPartitions=[], txnStartTimestamp=1796122215002, txnLastUpdateTimestamp=1796122220192, "
                + "clientTransactionVersion=TV_2]] after loading partition 6";
        String skipped = "2026-12-01 10:50:27,387 INFO TransactionMarkerChannelManager [Transaction Marker Channel Manager 1]: "
                + "Couldn't find leader endpoint for partitions Set(kvroute.responses-2, __consumer_offsets-1) while trying to send "
                + "transaction markers for kvroute-worker-ap-south-0, these partitions are likely deleted already and hence can be skipped";
        String resigned = "2026-12-01 10:50:27,424 INFO TransactionCoordinator [TransactionCoordinator id=1] Resigned as the txn "
                + "coordinator for partition 0 at epoch Some(1)";

        assertThat(SplitTransactions.parse(List.of(resent, "more", skipped, resigned), "kvroute-worker-"))
                .containsExactly(new SplitTransactions.Split("ap-south-0", 1_796_122_215_002L));
        // resent and delivered (no skipped line): no split
        assertThat(SplitTransactions.parse(List.of(resent, resigned), "kvroute-worker-")).isEmpty();
        // the end recorded after all: its start, as before
        assertThat(SplitTransactions.parse(List.of(resent, skipped, ENDED), "kvroute-worker-"))
                .containsExactly(new SplitTransactions.Split("ap-south-0", 1_796_060_008_177L));
    }

    @Test
    void shouldIgnoreTransactionsThatEndedWithEveryMarkerAndThoseOfOtherProducers() {
        String routerSkipped = SKIPPED.replace("kvroute-worker-ap-south-0", "kvroute-router-0_1");
        String routerEnded = ENDED.replace("kvroute-worker-ap-south-0", "kvroute-router-0_1");

        assertThat(SplitTransactions.parse(List.of(ENDED), "kvroute-worker-")).isEmpty();
        assertThat(SplitTransactions.parse(List.of(routerSkipped, routerEnded), "kvroute-worker-")).isEmpty();
        assertThat(SplitTransactions.parse(List.of(SKIPPED, ENDED), "other-worker-")).isEmpty();
        assertThat(SplitTransactions.read(List.of(Path.of("no-such-broker.log")), "kvroute-worker-")).isEmpty();
    }
}
