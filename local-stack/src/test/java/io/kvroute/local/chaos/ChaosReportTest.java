package io.kvroute.local.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.v1.ResponseStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChaosReportTest {
    private final List<ChaosWorkload.Item> items = ChaosWorkload.generate(40, 10, 0.1, 5);

    private TopicAudit auditWhereEveryRecordHasOneResult() {
        TopicAudit audit = new TopicAudit();
        for (ChaosWorkload.Item item : items) {
            ResponseStatus status = item.isPoison() ? ResponseStatus.REJECTED : ResponseStatus.COMPLETED;
            audit.terminals().put(item.requestId(), new java.util.ArrayList<>(List.of(new TopicAudit.Terminal(65_537, status))));
            if (item.isPoison()) {
                audit.deadLetters().add(new TopicAudit.DeadLetter(item.requestId(), "kvroute.requests", "not a Confluent-framed record"));
            } else {
                audit.dispatchRecords().put(item.requestId(), new java.util.HashMap<>(Map.of(1, 1)));
            }
        }
        return audit;
    }

    @Test
    void shouldPassWhenEveryRecordHasExactlyOneResultAndEveryPoisonRecordIsDeadLettered() {
        ChaosReport report = ChaosReport.of(items, auditWhereEveryRecordHasOneResult(), List.of(), null, List.of(), List.of(), 2_000, 1.0);

        assertThat(report.passed()).isTrue();
        assertThat(report.poison()).isEqualTo(4);
        assertThat(report.count(ResponseStatus.COMPLETED)).isEqualTo(36);
        assertThat(report.count(ResponseStatus.REJECTED)).isEqualTo(4);
        assertThat(report.poisonInDlq()).isEqualTo(4);
    }

    @Test
    void shouldReportWhatTheOperatorDidInTheJson() {
        ChaosReport report = ChaosReport.of(items, auditWhereEveryRecordHasOneResult(), List.of(), null, List.of(), List.of(), 2_000, 1.0)
                .withOperatorActions(List.of("worker-ap-south-1"), List.of("kvroute.responses-2 producer 13/6 open since offset 95"));

        assertThat(report.toJson()).containsEntry("restarted_after_exit", List.of("worker-ap-south-1"))
                .containsEntry("hanging_transactions_aborted", List.of("kvroute.responses-2 producer 13/6 open since offset 95"));
        assertThat(report.passed()).as("what an operator does is reported, not a failure").isTrue();
    }

    @Test
    void shouldCountARequestWithoutATerminalAsLost() {
        TopicAudit audit = auditWhereEveryRecordHasOneResult();
        audit.terminals().remove(items.get(0).requestId());

        ChaosReport report = ChaosReport.of(items, audit, List.of(), null, List.of(), List.of(), 2_000, 1.0);

        assertThat(report.lost()).isEqualTo(1);
        assertThat(report.lostStories()).singleElement().asString().startsWith((items.get(0).isPoison() ? "poison " : "")
                + items.get(0).requestId() + ": ");
        assertThat(report.passed()).isFalse();
    }

    @Test
    void shouldCountTerminalsFromTwoAttemptsAsADuplicatedResultButARedeliveredTerminalAsHarmless() {
        TopicAudit audit = auditWhereEveryRecordHasOneResult();
        String twice = firstGoodItem().requestId();
        audit.terminals().get(twice).add(new TopicAudit.Terminal(131_073, ResponseStatus.COMPLETED));
        String redelivered = items.stream().filter(i -> !i.isPoison() && !i.requestId().equals(twice)).findFirst().orElseThrow().requestId();
        audit.terminals().get(redelivered).add(new TopicAudit.Terminal(65_537, ResponseStatus.COMPLETED));

        ChaosReport report = ChaosReport.of(items, audit, List.of(), null, List.of(), List.of(), 2_000, 1.0);

        assertThat(report.duplicatedResults()).isEqualTo(1);
        assertThat(report.redeliveredTerminals()).isEqualTo(1);
        assertThat(report.passed()).isFalse();
    }

    /**
     * A duplicate whose earlier terminal the worker wrote in a transaction the broker split is told
     * apart and does not fail the run; one written seconds away from it, or by another worker, does.
     */
    @Test
    void shouldKeepDuplicatesFromATransactionTheBrokerSplitApartFromOthers() {
        long started = 1_796_060_008_177L;
        List<SplitTransactions.Split> splits = List.of(new SplitTransactions.Split("ap-south-0", started));
        String twice = firstGoodItem().requestId();

        for (long writtenAt : new long[] {started - 3, started + 5_000}) {
            for (String worker : new String[] {"ap-south-0", "us-east-0"}) {
                TopicAudit audit = auditWhereEveryRecordHasOneResult();
                audit.terminals().put(twice, new java.util.ArrayList<>(List.of(
                        new TopicAudit.Terminal(65_537, ResponseStatus.COMPLETED, worker, writtenAt),
                        new TopicAudit.Terminal(65_539, ResponseStatus.COMPLETED, worker, started + 13_000))));

                ChaosReport report = ChaosReport.of(items, audit, List.of(), null, splits, List.of(), 2_000, 1.0);

                boolean explained = writtenAt == started - 3 && worker.equals("ap-south-0");
                assertThat(report.duplicatedResults()).isEqualTo(1);
                assertThat(report.duplicatedBySplitTransactions()).as("%s at %d", worker, writtenAt).isEqualTo(explained ? 1 : 0);
                assertThat(report.passed()).as("%s at %d", worker, writtenAt).isEqualTo(explained);
            }
        }
    }

    /**
     * A request a router dispatched in a transaction the broker split, then again after its offset
     * commit was aborted, ran twice: both the second dispatch and the second result are told apart.
     * The same when the first dispatch was written 500 ms away from the split does fail the run, and
     * so does a second result of a request dispatched only once.
     */
    @Test
    void shouldKeepARequestDispatchedTwiceByARouterTransactionTheBrokerSplitApartFromOthers() {
        long started = 1_796_106_380_018L;
        List<SplitTransactions.Split> routerSplits = List.of(new SplitTransactions.Split("af20787d-1", started));
        String twice = firstGoodItem().requestId();

        for (long firstDispatchAt : new long[] {started - 33, started - 500}) {
            TopicAudit audit = auditWhereEveryRecordHasOneResult();
            audit.dispatchRecords().put(twice, Map.of(1, 2));
            audit.dispatchWrittenAtMs().put(twice, List.of(firstDispatchAt, started + 24_011));
            audit.terminals().put(twice, new java.util.ArrayList<>(List.of(
                    new TopicAudit.Terminal(65_541, ResponseStatus.COMPLETED, "us-east-0", started + 16_650),
                    new TopicAudit.Terminal(65_539, ResponseStatus.COMPLETED, "ap-south-0", started + 26_835))));

            ChaosReport report = ChaosReport.of(items, audit, List.of(), null, List.of(), routerSplits, 2_000, 1.0);

            boolean explained = firstDispatchAt == started - 33;
            assertThat(report.dispatchedTwice()).isEqualTo(1);
            assertThat(report.dispatchedTwiceBySplitTransactions()).as("first dispatch at %d", firstDispatchAt).isEqualTo(explained ? 1 : 0);
            assertThat(report.duplicatedBySplitTransactions()).as("first dispatch at %d", firstDispatchAt).isEqualTo(explained ? 1 : 0);
            assertThat(report.passed()).as("first dispatch at %d", firstDispatchAt).isEqualTo(explained);
        }

        // dispatched once, in the split transaction: a second result has some other cause
        TopicAudit once = auditWhereEveryRecordHasOneResult();
        once.dispatchRecords().put(twice, Map.of(1, 1));
        once.dispatchWrittenAtMs().put(twice, List.of(started - 33));
        once.terminals().put(twice, new java.util.ArrayList<>(List.of(
                new TopicAudit.Terminal(65_541, ResponseStatus.COMPLETED, "us-east-0", started + 16_650),
                new TopicAudit.Terminal(65_539, ResponseStatus.COMPLETED, "us-east-0", started + 26_835))));
        ChaosReport report = ChaosReport.of(items, once, List.of(), null, List.of(), routerSplits, 2_000, 1.0);
        assertThat(report.duplicatedBySplitTransactions()).isZero();
        assertThat(report.passed()).isFalse();
    }

    @Test
    void shouldTakeTheFirstTerminalOfTheHighestAttemptAsTheResult() {
        List<TopicAudit.Terminal> terminals = List.of(
                new TopicAudit.Terminal(131_073, ResponseStatus.CANCELLED),
                new TopicAudit.Terminal(65_537, ResponseStatus.COMPLETED),
                new TopicAudit.Terminal(131_073, ResponseStatus.COMPLETED));

        assertThat(ChaosReport.resultOf(terminals)).isEqualTo(ResponseStatus.CANCELLED);
    }

    @Test
    void shouldFailWhenAPoisonRecordIsMissingFromTheDeadLetterTopicOrHasNoReason() {
        TopicAudit audit = auditWhereEveryRecordHasOneResult();
        TopicAudit.DeadLetter first = audit.deadLetters().remove(0);
        audit.deadLetters().add(new TopicAudit.DeadLetter(first.key(), first.sourceTopic(), " "));

        ChaosReport report = ChaosReport.of(items, audit, List.of(), null, List.of(), List.of(), 2_000, 1.0);

        assertThat(report.poisonMissingFromDlq()).containsExactly(first.key());
        assertThat(report.passed()).isFalse();
    }

    @Test
    void shouldFailWhenARequestIsDispatchedTwiceWithTheSameAttemptButCountARePlacementApart() {
        TopicAudit audit = auditWhereEveryRecordHasOneResult();
        audit.dispatchRecords().put(firstGoodItem().requestId(), Map.of(1, 2));
        String moved = items.get(items.size() - 1).isPoison() ? items.get(items.size() - 2).requestId() : items.get(items.size() - 1).requestId();
        audit.dispatchRecords().put(moved, Map.of(1, 1, 2, 1));

        ChaosReport report = ChaosReport.of(items, audit, List.of(), null, List.of(), List.of(), 2_000, 1.0);

        assertThat(report.dispatchedTwice()).isEqualTo(1);
        assertThat(report.replaced()).isEqualTo(1);
    }

    @Test
    void shouldCountDispatchesToASilentRegionOnlyFromTwoTelemetryTtlsAfterItWentSilentUntilItCameBack() {
        TopicAudit audit = auditWhereEveryRecordHasOneResult();
        InjectedFault outage = new InjectedFault(FaultKind.REGION_OUTAGE, "eu-west", 10_000, 30_000);
        audit.dispatchDecisions().add(new TopicAudit.Dispatch("a", "eu-west", 13_000));
        audit.dispatchDecisions().add(new TopicAudit.Dispatch("b", "eu-west", 14_000));
        audit.dispatchDecisions().add(new TopicAudit.Dispatch("c", "us-east", 15_000));
        audit.dispatchDecisions().add(new TopicAudit.Dispatch("d", "eu-west", 30_000));

        ChaosReport report = ChaosReport.of(items, audit, List.of(outage), null, List.of(), List.of(), 2_000, 1.0);

        assertThat(report.dispatchedToSilentRegion()).isEqualTo(1);
        assertThat(report.faults()).containsEntry(FaultKind.REGION_OUTAGE, 1);
    }

    @Test
    void shouldCountWhereTheClientLibraryDeliveredSomethingElseThanTheTopicsSay() {
        TopicAudit audit = auditWhereEveryRecordHasOneResult();
        Map<String, ResponseStatus> client = new java.util.HashMap<>();
        items.forEach(i -> client.put(i.requestId(), i.isPoison() ? ResponseStatus.REJECTED : ResponseStatus.COMPLETED));
        client.remove(firstGoodItem().requestId());

        assertThat(ChaosReport.of(items, audit, List.of(), client, List.of(), List.of(), 2_000, 1.0).clientDisagreements()).isEqualTo(1);
    }

    private ChaosWorkload.Item firstGoodItem() {
        return items.stream().filter(i -> !i.isPoison()).findFirst().orElseThrow();
    }
}
