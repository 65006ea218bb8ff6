package io.kvroute.local.chaos;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.worker.engine.GpuSlots;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The verdict of a chaos run, from the topics' own record ({@link TopicAudit}):
 * <ul>
 *   <li>a request's result is the first terminal of its highest attempt (the response rule);
 *       {@code lost} counts records (requests and poison) with no terminal at all;</li>
 *   <li>{@code duplicated_results} counts requests with committed terminals from more than one
 *       attempt: a request that ran to the end twice, whose reader would have seen two results.
 *       Of these, {@code duplicated_by_split_transactions} had a terminal written by a worker
 *       transaction that the broker itself split ({@link SplitTransactions}), or were dispatched
 *       twice for a router transaction it split (below); only the others fail the run;</li>
 *   <li>{@code dispatched_twice} counts requests written to the dispatch topics more than once with
 *       the same dispatch attempt (a re-placement from a silent region is the next attempt, and is
 *       counted in {@code replaced}). Of these, {@code dispatched_twice_by_split_transactions} had a
 *       dispatch record written by a router transaction the broker split; only the others fail the
 *       run;</li>
 *   <li>{@code requests_rerun} (information, not a failure) counts requests with events from more
 *       than one attempt: the faults did hit work in flight;</li>
 *   <li>every poison record must be in the dead-letter topic with a reason;</li>
 *   <li>no request may be dispatched to a region that went silent later than two telemetry TTLs
 *       after it did (until it came back).</li>
 * </ul>
 * {@link #passed()} holds when all of these are clean.
 */
public record ChaosReport(
        int requests,
        int poison,
        Map<FaultKind, Integer> faults,
        int faultsSkipped,
        Map<ResponseStatus, Integer> results,
        int lost,
        List<String> lostStories,
        int duplicatedResults,
        List<String> duplicatedIds,
        int duplicatedBySplitTransactions,
        int redeliveredTerminals,
        int dispatchedTwice,
        int dispatchedTwiceBySplitTransactions,
        int replaced,
        long requestsRerun,
        int dlq,
        int poisonInDlq,
        List<String> poisonMissingFromDlq,
        int dispatchedToSilentRegion,
        int clientDisagreements,
        List<InjectedFault> timeline,
        List<String> restartedAfterExit,
        List<String> hangingTransactionsAborted,
        double durationSeconds) {

    /**
     * How close to a split worker transaction's start a terminal must have been written to count as
     * part of it: a worker writes a transaction's results right after beginning it (3 ms apart in the
     * run that showed the split), and commits every 25 ms.
     */
    static final long SPLIT_WINDOW_MS = 1_000;
    /**
     * The same for a router's dispatch record: two of the router's 50 ms commit intervals. In the run
     * that showed a router's split the record was written 33 ms before the transaction's recorded
     * start (the broker records it when the producer's first partition joins the transaction).
     */
    static final long ROUTER_SPLIT_WINDOW_MS = 100;

    /**
     * @param clientResults each request's status as the client library delivered it (absent: none delivered)
     * @param splits        worker transactions the broker split ({@link SplitTransactions})
     * @param routerSplits  router transactions the broker split
     */
    public static ChaosReport of(List<ChaosWorkload.Item> items, TopicAudit audit, List<InjectedFault> injected,
                                 Map<String, ResponseStatus> clientResults, List<SplitTransactions.Split> splits,
                                 List<SplitTransactions.Split> routerSplits, long telemetryTtlMs, double durationSeconds) {
        Map<FaultKind, Integer> faults = new EnumMap<>(FaultKind.class);
        for (FaultKind kind : FaultKind.values()) {
            faults.put(kind, 0);
        }
        int skipped = 0;
        for (InjectedFault fault : injected) {
            if (fault.skipped()) {
                skipped++;
            } else {
                faults.merge(fault.kind(), 1, Integer::sum);
            }
        }
        Map<ResponseStatus, Integer> results = new EnumMap<>(ResponseStatus.class);
        for (ResponseStatus status : ResponseStatus.values()) {
            results.put(status, 0);
        }
        int lost = 0, duplicated = 0, duplicatedBySplit = 0, redelivered = 0, dispatchedTwice = 0, dispatchedTwiceBySplit = 0, replaced = 0,
                disagreements = 0, poison = 0;
        Set<String> deadLetterKeysWithReason = new HashSet<>();
        audit.deadLetters().stream()
                .filter(d -> d.key() != null && d.reason() != null && !d.reason().isBlank())
                .forEach(d -> deadLetterKeysWithReason.add(d.key()));
        List<String> poisonMissing = new ArrayList<>();
        List<String> lostStories = new ArrayList<>();
        List<String> duplicatedIds = new ArrayList<>();
        for (ChaosWorkload.Item item : items) {
            String id = item.requestId();
            if (item.isPoison()) {
                poison++;
                if (!deadLetterKeysWithReason.contains(id)) {
                    poisonMissing.add(id);
                }
            }
            Map<Integer, Integer> dispatches = audit.dispatchRecords().getOrDefault(id, Map.of());
            // dispatched twice with one of its records in a router transaction the broker split: it ran twice for that
            boolean twiceBySplit = false;
            if (dispatches.values().stream().anyMatch(count -> count > 1)) {
                dispatchedTwice++;
                twiceBySplit = audit.dispatchWrittenAtMs().getOrDefault(id, List.of()).stream().anyMatch(writtenAtMs ->
                        routerSplits.stream().anyMatch(s -> Math.abs(writtenAtMs - s.startedAtMs()) <= ROUTER_SPLIT_WINDOW_MS));
                if (twiceBySplit) {
                    dispatchedTwiceBySplit++;
                }
            }
            if (dispatches.keySet().stream().anyMatch(attempt -> attempt > 1)) {
                replaced++;
            }
            List<TopicAudit.Terminal> terminals = audit.terminals().getOrDefault(id, List.of());
            if (terminals.isEmpty()) {
                lost++;
                ResponseStatus seenByClient = clientResults == null ? null : clientResults.get(id);
                lostStories.add((item.isPoison() ? "poison " : "") + audit.story(id)
                        + (seenByClient == null ? "" : "; the client had " + seenByClient));
                continue;
            }
            Map<Integer, Integer> perAttempt = new HashMap<>();
            terminals.forEach(t -> perAttempt.merge(t.attempt(), 1, Integer::sum));
            if (perAttempt.size() > 1) {
                duplicated++;
                duplicatedIds.add(id);
                if (twiceBySplit || terminals.stream().anyMatch(t -> inSplit(t, splits))) {
                    duplicatedBySplit++;
                }
            }
            if (perAttempt.values().stream().anyMatch(count -> count > 1)) {
                redelivered++;
            }
            ResponseStatus status = resultOf(terminals);
            results.merge(status, 1, Integer::sum);
            if (clientResults != null && clientResults.get(id) != status) {
                disagreements++;
            }
        }
        return new ChaosReport(items.size(), poison, faults, skipped, results, lost, lostStories.stream().limit(20).toList(), duplicated,
                duplicatedIds.stream().limit(20).toList(), duplicatedBySplit, redelivered, dispatchedTwice, dispatchedTwiceBySplit,
                replaced, audit.requestsRerun(), audit.deadLetters().size(), poison - poisonMissing.size(), poisonMissing.stream().limit(20).toList(),
                dispatchedToSilentRegion(audit, injected, telemetryTtlMs), disagreements, List.copyOf(injected), List.of(), List.of(), durationSeconds);
    }

    /**
     * Adds what the run's operator did: processes that exited on their own and were started again,
     * and transactions left hanging by the broker that were aborted.
     */
    public ChaosReport withOperatorActions(List<String> restarted, List<String> abortedTransactions) {
        return new ChaosReport(requests, poison, faults, faultsSkipped, results, lost, lostStories, duplicatedResults, duplicatedIds,
                duplicatedBySplitTransactions, redeliveredTerminals, dispatchedTwice, dispatchedTwiceBySplitTransactions, replaced, requestsRerun, dlq, poisonInDlq, poisonMissingFromDlq,
                dispatchedToSilentRegion, clientDisagreements, timeline, List.copyOf(restarted), List.copyOf(abortedTransactions),
                durationSeconds);
    }

    private static boolean inSplit(TopicAudit.Terminal terminal, List<SplitTransactions.Split> splits) {
        // a split transaction's owner is a worker process; its terminals name the process, or one of its GPU slots
        return terminal.workerId() != null && splits.stream().anyMatch(s -> GpuSlots.isSlotOf(terminal.workerId(), s.owner())
                && Math.abs(terminal.writtenAtMs() - s.startedAtMs()) <= SPLIT_WINDOW_MS);
    }

    /** The response rule: the first terminal of the highest attempt. */
    static ResponseStatus resultOf(List<TopicAudit.Terminal> terminals) {
        int highest = terminals.stream().mapToInt(TopicAudit.Terminal::attempt).max().orElseThrow();
        return terminals.stream().filter(t -> t.attempt() == highest).findFirst().orElseThrow().status();
    }

    private static int dispatchedToSilentRegion(TopicAudit audit, List<InjectedFault> injected, long telemetryTtlMs) {
        int count = 0;
        for (InjectedFault outage : injected) {
            if (outage.kind() != FaultKind.REGION_OUTAGE || outage.skipped()) {
                continue;
            }
            long from = outage.struckAtMs() + 2 * telemetryTtlMs;
            long to = outage.recoveredAtMs() == 0 ? Long.MAX_VALUE : outage.recoveredAtMs();
            count += (int) audit.dispatchDecisions().stream()
                    .filter(d -> outage.target().equals(d.region()) && d.decidedAtMs() >= from && d.decidedAtMs() < to)
                    .count();
        }
        return count;
    }

    public int count(ResponseStatus status) {
        return results.getOrDefault(status, 0);
    }

    public boolean passed() {
        return lost == 0 && duplicatedResults == duplicatedBySplitTransactions && dispatchedTwice == dispatchedTwiceBySplitTransactions
                && poisonMissingFromDlq.isEmpty()
                && dispatchedToSilentRegion == 0;
    }

    public Map<String, Object> toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("requests", requests);
        json.put("poison", poison);
        Map<String, Integer> faultCounts = new LinkedHashMap<>();
        faults.forEach((kind, n) -> faultCounts.put(kind.jsonName(), n));
        json.put("faults", faultCounts);
        json.put("faults_skipped", faultsSkipped);
        json.put("completed", count(ResponseStatus.COMPLETED));
        json.put("rejected", count(ResponseStatus.REJECTED));
        json.put("expired", count(ResponseStatus.EXPIRED));
        json.put("failed", count(ResponseStatus.FAILED));
        json.put("cancelled", count(ResponseStatus.CANCELLED));
        json.put("lost", lost);
        json.put("lost_stories", lostStories);
        json.put("duplicated_results", duplicatedResults);
        json.put("duplicated_ids", duplicatedIds);
        json.put("duplicated_by_split_transactions", duplicatedBySplitTransactions);
        json.put("redelivered_terminals", redeliveredTerminals);
        json.put("dispatched_twice", dispatchedTwice);
        json.put("dispatched_twice_by_split_transactions", dispatchedTwiceBySplitTransactions);
        json.put("replaced", replaced);
        json.put("requests_rerun", requestsRerun);
        json.put("dlq", dlq);
        json.put("poison_in_dlq", poisonInDlq);
        json.put("poison_missing_from_dlq", poisonMissingFromDlq);
        json.put("dispatched_to_silent_region", dispatchedToSilentRegion);
        json.put("client_disagreements", clientDisagreements);
        List<Map<String, Object>> events = new ArrayList<>();
        timeline.stream().sorted(Comparator.comparingLong(InjectedFault::struckAtMs)).forEach(f -> {
            Map<String, Object> event = new LinkedHashMap<>();
            event.put("kind", f.kind().jsonName());
            event.put("target", f.target());
            event.put("struck_at_ms", f.struckAtMs());
            event.put("recovered_at_ms", f.recoveredAtMs());
            events.add(event);
        });
        json.put("timeline", events);
        json.put("restarted_after_exit", restartedAfterExit);
        json.put("hanging_transactions_aborted", hangingTransactionsAborted);
        json.put("passed", passed());
        json.put("duration_s", Math.round(durationSeconds * 10) / 10.0);
        return json;
    }

    public void writeJson(Path path) throws IOException {
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(path.toFile(), toJson());
    }

    public void printTable(PrintStream out) {
        out.println();
        out.println("kvroute chaos: " + requests + " records (" + poison + " poison)");
        out.println("  ------------------------------------------------");
        StringBuilder faultLine = new StringBuilder();
        faults.forEach((kind, n) -> faultLine.append(kind.jsonName()).append('=').append(n).append(' '));
        out.printf("  %-26s %s%s%n", "faults", faultLine, faultsSkipped > 0 ? "(skipped " + faultsSkipped + ")" : "");
        out.printf("  %-26s %d%n", "completed", count(ResponseStatus.COMPLETED));
        out.printf("  %-26s %d%n", "rejected", count(ResponseStatus.REJECTED));
        out.printf("  %-26s %d / %d / %d%n", "expired / failed / cancelled", count(ResponseStatus.EXPIRED),
                count(ResponseStatus.FAILED), count(ResponseStatus.CANCELLED));
        out.printf("  %-26s %d%n", "lost", lost);
        lostStories.forEach(story -> out.printf("  %-26s %s%n", "", story));
        out.printf("  %-26s %d%s%n", "duplicated results", duplicatedResults, duplicatedBySplitTransactions == 0 ? ""
                : " (" + duplicatedBySplitTransactions + " from transactions the broker split: not a client fault)");
        out.printf("  %-26s %d%s%n", "dispatched twice", dispatchedTwice, dispatchedTwiceBySplitTransactions == 0 ? ""
                : " (" + dispatchedTwiceBySplitTransactions + " from router transactions the broker split: not a router fault)");
        out.printf("  %-26s %d (from a silent region to another)%n", "re-placed by the router", replaced);
        out.printf("  %-26s %d (a run cut short by a fault and redone)%n", "requests rerun", requestsRerun);
        out.printf("  %-26s %d (poison in it: %d of %d)%n", "dead letters", dlq, poisonInDlq, poison);
        out.printf("  %-26s %d%n", "sent to a silent region", dispatchedToSilentRegion);
        out.printf("  %-26s %d%n", "client disagreements", clientDisagreements);
        if (!restartedAfterExit.isEmpty()) {
            out.printf("  %-26s %s%n", "exited, restarted", restartedAfterExit);
        }
        if (!hangingTransactionsAborted.isEmpty()) {
            out.printf("  %-26s %s%n", "hanging txns aborted", hangingTransactionsAborted);
        }
        out.printf("  %-26s %.1f s%n", "duration", durationSeconds);
        out.printf("  %-26s %s%n", "verdict", passed() ? "PASSED" : "FAILED");
        out.println("  ------------------------------------------------");
    }
}
