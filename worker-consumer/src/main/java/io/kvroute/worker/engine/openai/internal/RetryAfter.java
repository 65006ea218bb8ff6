package io.kvroute.worker.engine.openai.internal;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.OptionalLong;

/** Reads an HTTP {@code Retry-After} header: delay-seconds or an HTTP date, capped at {@value #MAX_MS} ms. */
public final class RetryAfter {
    public static final long MAX_MS = 600_000;

    private RetryAfter() {
    }

    /** The delay in ms from {@code nowMs}; empty when the header is absent or unreadable. */
    public static OptionalLong delayMs(String header, long nowMs) {
        if (header == null || header.isBlank()) {
            return OptionalLong.empty();
        }
        String value = header.strip();
        try {
            double seconds = Double.parseDouble(value);
            if (seconds >= 0 && Double.isFinite(seconds)) {
                return OptionalLong.of(Math.min(MAX_MS, Math.round(seconds * 1000)));
            }
            return OptionalLong.empty();
        } catch (NumberFormatException e) {
            // not seconds: an HTTP date
        }
        try {
            long at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
            return OptionalLong.of(Math.max(0, Math.min(MAX_MS, at - nowMs)));
        } catch (DateTimeParseException e) {
            return OptionalLong.empty();
        }
    }
}
