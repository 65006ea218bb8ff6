package io.kvroute.worker.engine.openai.internal;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Turns the bytes of a server-sent-events stream, in chunks split anywhere (even inside a UTF-8
 * character), into the data of each event: {@code data:} lines are joined with newlines and
 * handed on at the blank line that ends the event. Comment lines ({@code :...}) and the
 * {@code event}, {@code id} and {@code retry} fields are ignored; lines end at {@code \n} or
 * {@code \r\n}. Not thread-safe: one stream, one thread at a time.
 */
public final class SseDecoder {
    private final Consumer<String> events;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private final StringBuilder data = new StringBuilder();
    private boolean hasData;

    public SseDecoder(Consumer<String> events) {
        this.events = events;
    }

    public void feed(ByteBuffer bytes) {
        while (bytes.hasRemaining()) {
            byte b = bytes.get();
            if (b == '\n') {
                endLine();
            } else {
                line.write(b);
            }
        }
    }

    private void endLine() {
        byte[] raw = line.toByteArray();
        line.reset();
        int length = raw.length > 0 && raw[raw.length - 1] == '\r' ? raw.length - 1 : raw.length;
        String text = new String(raw, 0, length, StandardCharsets.UTF_8);
        if (text.isEmpty()) {
            if (hasData) {
                String event = data.toString();
                data.setLength(0);
                hasData = false;
                events.accept(event);
            }
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
        if (field.equals("data")) {
            if (hasData) {
                data.append('\n');
            }
            data.append(value);
            hasData = true;
        }
    }
}
