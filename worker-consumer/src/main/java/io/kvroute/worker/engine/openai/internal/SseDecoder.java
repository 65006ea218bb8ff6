package io.kvroute.worker.engine.openai.internal;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Turns the bytes of a server-sent-events stream, in chunks split anywhere (even inside a UTF-8
 * character), into events: {@code data:} lines are joined with newlines and handed on, with the
 * event's type ({@code event:}, {@value #MESSAGE} by default), at the blank line that ends the
 * event. Comment lines ({@code :...}) and the {@code id} and {@code retry} fields are ignored;
 * lines end at {@code \n} or {@code \r\n}. Lines and events are bounded ({@value #MAX_LINE_BYTES}
 * bytes, {@value #MAX_EVENT_CHARS} characters). Not thread-safe: one stream, one thread at a time.
 *
 * <p>Two departures from the SSE rules, both so that a server's error is not lost: llama.cpp
 * builds up to mid-2025 wrote a mid-stream error as a line {@code error: <json>}, a field the rules
 * say to ignore; it is read as an {@value #ERROR} event carrying that JSON. And an {@code event: error}
 * without data is handed on (with empty data) rather than dropped.
 */
public final class SseDecoder {
    /** The type of an event without an {@code event:} field. */
    public static final String MESSAGE = "message";
    /** The type of an error event. */
    public static final String ERROR = "error";
    /**
     * The longest line read: a streamed chunk is a few hundred bytes, with logprobs a few KiB; a
     * line past this (a server gone wrong, or hostile) fails the stream instead of the worker's heap.
     */
    public static final int MAX_LINE_BYTES = 1 << 20;
    /** The most data one event joins from its lines. */
    public static final int MAX_EVENT_CHARS = 4 << 20;

    /** Receives each complete event. */
    @FunctionalInterface
    public interface Events {
        void event(String type, String data);
    }

    private final Events events;
    private ByteArrayOutputStream line = new ByteArrayOutputStream();
    private final StringBuilder data = new StringBuilder();
    private boolean hasData;
    private String type = MESSAGE;
    private boolean overLimit;

    public SseDecoder(Events events) {
        this.events = events;
    }

    /**
     * Reads {@code bytes}, handing on the events they complete.
     *
     * @throws IllegalArgumentException when a line passes {@value #MAX_LINE_BYTES} bytes or an event
     *                                  {@value #MAX_EVENT_CHARS} characters; the decoder then drops what it held and
     *                                  reads nothing more
     */
    public void feed(ByteBuffer bytes) {
        if (overLimit) {
            bytes.position(bytes.limit());
            return;
        }
        while (bytes.hasRemaining()) {
            byte b = bytes.get();
            if (b == '\n') {
                endLine();
            } else if (line.size() < MAX_LINE_BYTES) {
                line.write(b);
            } else {
                throw overLimit("SSE line longer than " + MAX_LINE_BYTES + " bytes");
            }
        }
    }

    private IllegalArgumentException overLimit(String what) {
        overLimit = true;
        line = new ByteArrayOutputStream();
        data.setLength(0);
        data.trimToSize();
        return new IllegalArgumentException(what + ": not read");
    }

    private void endLine() {
        byte[] raw = line.toByteArray();
        line.reset();
        int length = raw.length > 0 && raw[raw.length - 1] == '\r' ? raw.length - 1 : raw.length;
        String text = new String(raw, 0, length, StandardCharsets.UTF_8);
        if (text.isEmpty()) {
            dispatch();
            return;
        }
        if (text.startsWith(":")) {
            return;
        }
        int colon = text.indexOf(':');
        String field = colon < 0 ? text : text.substring(0, colon);
        String value = colon < 0 ? "" : text.substring(colon + 1);
        if (value.startsWith(" ")) {
            value = value.substring(1);
        }
        switch (field) {
            case "data" -> append(value);
            case "event" -> type = value.isEmpty() ? MESSAGE : value;
            case ERROR -> {
                type = ERROR;
                append(value);
            }
            default -> {
                // id, retry and unknown fields carry nothing the engine reads
            }
        }
    }

    private void append(String value) {
        if (data.length() + value.length() + 1 > MAX_EVENT_CHARS) {
            throw overLimit("SSE event longer than " + MAX_EVENT_CHARS + " characters");
        }
        if (hasData) {
            data.append('\n');
        }
        data.append(value);
        hasData = true;
    }

    private void dispatch() {
        if (hasData || type.equals(ERROR)) {
            String event = data.toString();
            String eventType = type;
            data.setLength(0);
            hasData = false;
            type = MESSAGE;
            events.event(eventType, event);
            return;
        }
        type = MESSAGE;
    }
}
