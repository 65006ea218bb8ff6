package io.kvroute.local.console;

import io.kvroute.schemas.v1.RoutingDecision;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The newest routing decisions, at most {@code capacity} of them (older ones fall off), and how
 * many of each outcome were read since the console started.
 */
final class DecisionLog {
    private final int capacity;
    private final ArrayDeque<RoutingDecision> newest = new ArrayDeque<>();
    private final Map<String, Long> outcomes = new TreeMap<>();
    private long read;

    DecisionLog(int capacity) {
        this.capacity = capacity;
    }

    synchronized void add(RoutingDecision decision) {
        read++;
        outcomes.merge(decision.getOutcome().name(), 1L, Long::sum);
        if (newest.size() == capacity) {
            newest.removeFirst();
        }
        newest.addLast(decision);
    }

    /** Filter values; null or empty matches all. */
    record Filter(String tenant, String region, String outcome, String requestId) {
        boolean test(RoutingDecision d) {
            return matches(tenant, d.getTenant()) && matches(region, d.getRegion()) && matches(outcome, d.getOutcome().name())
                    && (requestId == null || requestId.isEmpty() || d.getRequestId().contains(requestId));
        }

        private static boolean matches(String wanted, String actual) {
            return wanted == null || wanted.isEmpty() || wanted.equals(actual);
        }
    }

    /** Up to {@code limit} kept decisions matching {@code filter}, newest first, and the values the filters can take. */
    synchronized Map<String, Object> snapshot(Filter filter, int limit) {
        List<RoutingDecision> matched = new ArrayList<>();
        TreeSet<String> tenants = new TreeSet<>();
        TreeSet<String> regions = new TreeSet<>();
        for (Iterator<RoutingDecision> it = newest.descendingIterator(); it.hasNext(); ) {
            RoutingDecision d = it.next();
            tenants.add(d.getTenant());
            if (d.getRegion() != null) {
                regions.add(d.getRegion());
            }
            if (filter.test(d)) {
                matched.add(d);
            }
        }
        // newest first by decision time: partitions interleave in the order they are read
        matched.sort(Comparator.comparingLong(RoutingDecision::getDecidedAtMs).reversed());
        List<Map<String, Object>> shown = matched.stream().limit(limit).map(RecordViews::decision).toList();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("read", read);
        out.put("kept", newest.size());
        out.put("capacity", capacity);
        out.put("matching", matched.size());
        out.put("outcomes", new TreeMap<>(outcomes));
        out.put("tenants", tenants);
        out.put("regions", regions);
        out.put("decisions", shown);
        return out;
    }
}
