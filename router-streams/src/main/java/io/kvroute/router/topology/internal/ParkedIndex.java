package io.kvroute.router.topology.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a routing task must know of its parked requests between placements, held in memory so that a pass over them
 * (every {@code router.parked.retry.ms}) reads back only the requests it acts on: each one's request id, tenant,
 * deadline and when it was parked, in parking order. Reading every parked request back from the store on each pass,
 * prompt and all, made a pass cost O(parked): a backlog of a batch, thousands parked per task, then took the routing
 * thread's time from routing. The store stays the record (it survives a restart); the index is rebuilt from it.
 * Not thread-safe: one per routing task.
 */
final class ParkedIndex {
    /** One parked request; {@code deadlineMs} {@link Long#MAX_VALUE} for none. */
    record Entry(String key, String requestId, String tenant, long parkedAtMs, long deadlineMs) {
    }

    private static final Comparator<Entry> BY_DEADLINE = Comparator.comparingLong(Entry::deadlineMs).thenComparing(Entry::key);

    /** In parking order (the keys' sequence). */
    private final Map<String, Entry> byKey = new LinkedHashMap<>();
    /** Those with a deadline, soonest first. */
    private final TreeSet<Entry> byDeadline = new TreeSet<>(BY_DEADLINE);
    /** Parked keys per request id (a request handed back is parked again under a new key), for cancels. */
    private final Map<String, List<String>> keysByRequestId = new HashMap<>();

    void add(String key, String requestId, String tenant, long parkedAtMs, Long deadlineMs) {
        Entry entry = new Entry(key, requestId, tenant, parkedAtMs, deadlineMs == null ? Long.MAX_VALUE : deadlineMs);
        if (byKey.putIfAbsent(key, entry) != null) {
            throw new IllegalStateException("parked key " + key + " is already indexed");
        }
        if (entry.deadlineMs() != Long.MAX_VALUE) {
            byDeadline.add(entry);
        }
        keysByRequestId.computeIfAbsent(requestId, id -> new ArrayList<>(1)).add(key);
    }

    void remove(String key) {
        Entry entry = byKey.remove(key);
        if (entry == null) {
            return;
        }
        if (entry.deadlineMs() != Long.MAX_VALUE) {
            byDeadline.remove(entry);
        }
        List<String> keys = keysByRequestId.get(entry.requestId());
        keys.remove(key);
        if (keys.isEmpty()) {
            keysByRequestId.remove(entry.requestId());
        }
    }

    int size() {
        return byKey.size();
    }

    Entry get(String key) {
        return byKey.get(key);
    }

    /**
     * Entries parked at or before {@code cutoffMs}, oldest first. Walks in parking order and stops at the first parked
     * later, so a pass costs what it finds: after the wall clock stepped back, one parked before the step but behind a
     * later one waits until that one is found too (at most the step longer).
     */
    List<Entry> parkedAtOrBefore(long cutoffMs) {
        List<Entry> found = new ArrayList<>();
        for (Entry entry : byKey.values()) {
            if (entry.parkedAtMs() > cutoffMs) {
                break;
            }
            found.add(entry);
        }
        return found;
    }

    /** Entries whose deadline is at or before {@code nowMs}, soonest first. */
    List<Entry> deadlineAtOrBefore(long nowMs) {
        List<Entry> found = new ArrayList<>();
        for (Entry entry : byDeadline) {
            if (entry.deadlineMs() > nowMs) {
                break;
            }
            found.add(entry);
        }
        return found;
    }

    /** Entries of {@code requestId}, in parking order. */
    List<Entry> ofRequest(String requestId) {
        List<String> keys = keysByRequestId.get(requestId);
        if (keys == null) {
            return List.of();
        }
        List<Entry> entries = new ArrayList<>(keys.size());
        keys.forEach(key -> entries.add(byKey.get(key)));
        return entries;
    }

    /** The request ids parked, each once. */
    Set<String> requestIds() {
        return keysByRequestId.keySet();
    }

    void clear() {
        byKey.clear();
        byDeadline.clear();
        keysByRequestId.clear();
    }
}
