package io.kvroute.local.console;

import io.kvroute.schemas.topics.DeadLetterHeaders;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Dead letters as their headers describe them (source topic, position, error class and message):
 * a count per reason (source topic and error class) over every dead letter read, and the newest
 * {@code capacity} of them. The original value is user data and is only measured, never kept.
 */
final class DeadLetterLog {
    static final int MAX_REASONS = 1_000;
    static final int MAX_TEXT = 300;
    private static final String OTHER = "\n(other)";

    private final int capacity;
    private final ArrayDeque<Map<String, Object>> newest = new ArrayDeque<>();
    private final Map<String, Reason> reasons = new LinkedHashMap<>();
    private long read;

    DeadLetterLog(int capacity) {
        this.capacity = capacity;
    }

    private static final class Reason {
        final String sourceTopic;
        final String errorClass;
        long count;
        long lastAtMs;
        String lastMessage;

        Reason(String sourceTopic, String errorClass) {
            this.sourceTopic = sourceTopic;
            this.errorClass = errorClass;
        }
    }

    synchronized void add(ConsumerRecord<String, byte[]> record) {
        read++;
        String sourceTopic = header(record, DeadLetterHeaders.SOURCE_TOPIC);
        String errorClass = header(record, DeadLetterHeaders.ERROR_CLASS);
        String message = header(record, DeadLetterHeaders.ERROR_MESSAGE);
        long failedAt = parseLong(header(record, DeadLetterHeaders.FAILED_AT_MS), record.timestamp());
        String reasonKey = sourceTopic + "\n" + errorClass;
        Reason reason = reasons.get(reasonKey);
        if (reason == null && reasons.size() >= MAX_REASONS) {
            reason = reasons.computeIfAbsent(OTHER, k -> new Reason("(several)", "(more reasons than the console counts apart)"));
        } else if (reason == null) {
            reason = new Reason(sourceTopic, errorClass);
            reasons.put(reasonKey, reason);
        }
        reason.count++;
        reason.lastAtMs = Math.max(reason.lastAtMs, failedAt);
        reason.lastMessage = message;

        Map<String, Object> letter = new LinkedHashMap<>();
        letter.put("failedAtMs", failedAt);
        letter.put("key", clip(record.key()));
        letter.put("sourceTopic", sourceTopic);
        letter.put("sourcePartition", header(record, DeadLetterHeaders.SOURCE_PARTITION));
        letter.put("sourceOffset", header(record, DeadLetterHeaders.SOURCE_OFFSET));
        letter.put("errorClass", errorClass);
        letter.put("errorMessage", message);
        letter.put("valueBytes", record.value() == null ? 0 : record.value().length);
        letter.put("dlqPartition", record.partition());
        letter.put("dlqOffset", record.offset());
        if (newest.size() == capacity) {
            newest.removeFirst();
        }
        newest.addLast(letter);
    }

    /** Reasons by count (then newest), and the kept dead letters newest first. */
    synchronized Map<String, Object> snapshot(int limit) {
        List<Map<String, Object>> byReason = new ArrayList<>();
        reasons.values().stream()
                .sorted(Comparator.comparingLong((Reason r) -> -r.count).thenComparingLong(r -> -r.lastAtMs))
                .forEach(r -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("sourceTopic", r.sourceTopic);
                    m.put("errorClass", r.errorClass);
                    m.put("count", r.count);
                    m.put("lastAtMs", r.lastAtMs);
                    m.put("lastMessage", r.lastMessage);
                    byReason.add(m);
                });
        List<Map<String, Object>> recent = new ArrayList<>();
        for (Iterator<Map<String, Object>> it = newest.descendingIterator(); it.hasNext() && recent.size() < limit; ) {
            recent.add(it.next());
        }
        recent.sort(Comparator.comparingLong((Map<String, Object> m) -> -(Long) m.get("failedAtMs")));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("read", read);
        out.put("kept", newest.size());
        out.put("capacity", capacity);
        out.put("reasons", byReason);
        out.put("recent", recent);
        return out;
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null ? "(none)" : clip(new String(header.value(), StandardCharsets.UTF_8));
    }

    private static String clip(String s) {
        if (s == null) {
            return null;
        }
        return s.length() <= MAX_TEXT ? s : s.substring(0, MAX_TEXT) + "…";
    }

    private static long parseLong(String s, long fallback) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return fallback;
        }
    }
}
