package io.kvroute.local.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Transactions the broker itself split, read from its log: after a restart its transaction
 * coordinator found partitions without a leader and skipped their markers ("Couldn't find leader
 * endpoint ... can be skipped"), then recorded the transaction as ended anyway (or resigned before it
 * could). Those partitions kept the transaction open until the producer's next transaction ended it, so what it wrote
 * there took the next transaction's outcome, not its own (or was aborted as hanging): a result
 * committed while its offset commit was aborted runs again, and so does a router's dispatch
 * committed while its offset commit and its record of the accepted request were aborted (docs/reliability.md,
 * "Chaos testing", the limit of a single broker restarted within seconds). No client can repair that; the chaos verdict keeps such duplicates apart from
 * the ones a client bug would cause. Reads Kafka's own log lines: if a Kafka version words them
 * differently, nothing is found and such duplicates fail the run, as before.
 */
final class SplitTransactions {
    private static final Pattern SKIPPED = Pattern.compile(
            "Couldn't find leader endpoint for partitions .* while trying to send transaction markers for (\\S+?),");
    private static final Pattern ENDED = Pattern.compile(
            "TransactionalId (\\S+) append transaction log for TxnTransitMetadata\\[.*txnStartTimestamp=(\\d+)");
    private static final long NO_START = -1;
    /** A coordinator back from a restart resending the markers of a transaction it found half-ended. */
    private static final Pattern RESENDING = Pattern.compile(
            "Sending txn markers for .*?transactionalId=([^,\\]]+),.*?txnStartTimestamp=(\\d+)");

    /**
     * One split transaction: whose (its transactional id after the prefix read: a worker's id, or a
     * router's stream thread) and when it started (broker clock).
     */
    record Split(String owner, long startedAtMs) {
    }

    private SplitTransactions() {
    }

    /**
     * The split transactions whose transactional ids start with {@code txnPrefix} (a worker's
     * {@code <topic prefix>-worker-}, the routers' {@code <topic prefix>-router-}) that the broker
     * logs name; a missing log names none.
     */
    static List<Split> read(List<Path> brokerLogs, String txnPrefix) {
        List<Split> splits = new ArrayList<>();
        for (Path log : brokerLogs) {
            if (!Files.exists(log)) {
                continue;
            }
            try {
                splits.addAll(parse(Files.readAllLines(log, StandardCharsets.UTF_8), txnPrefix));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the broker log " + log, e);
            }
        }
        return splits;
    }

    /**
     * A skipped-markers line, then the line recording that transaction's end, which carries its start time. A
     * coordinator that gave up the transaction log before recording the end (it resigned) leaves no such line; then
     * the start is the one it logged when it resent that transaction's markers after its restart, before skipping them.
     */
    static List<Split> parse(List<String> lines, String txnPrefix) {
        List<Split> splits = new ArrayList<>();
        Map<String, Long> resentStart = new HashMap<>();
        // skipped transactional id -> the start its resent markers gave, NO_START without them
        Map<String, Long> skipped = new LinkedHashMap<>();
        for (String line : lines) {
            Matcher r = RESENDING.matcher(line);
            if (r.find()) {
                resentStart.put(r.group(1), Long.parseLong(r.group(2)));
                continue;
            }
            Matcher s = SKIPPED.matcher(line);
            if (s.find()) {
                skipped.put(s.group(1), resentStart.getOrDefault(s.group(1), NO_START));
                continue;
            }
            Matcher e = ENDED.matcher(line);
            if (e.find() && skipped.remove(e.group(1)) != null && e.group(1).startsWith(txnPrefix)) {
                splits.add(new Split(e.group(1).substring(txnPrefix.length()), Long.parseLong(e.group(2))));
            }
        }
        skipped.forEach((txnId, start) -> {
            if (start != NO_START && txnId.startsWith(txnPrefix)) {
                splits.add(new Split(txnId.substring(txnPrefix.length()), start));
            }
        });
        return splits;
    }
}
