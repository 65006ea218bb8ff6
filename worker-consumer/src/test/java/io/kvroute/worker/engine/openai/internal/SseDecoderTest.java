package io.kvroute.worker.engine.openai.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseDecoderTest {

    private static List<String> decodeSplitAt(byte[] bytes, int... cuts) {
        List<String> events = new ArrayList<>();
        SseDecoder decoder = new SseDecoder((type, data) -> events.add(type.equals(SseDecoder.MESSAGE) ? data : type + ": " + data));
        int from = 0;
        for (int cut : cuts) {
            decoder.feed(ByteBuffer.wrap(bytes, from, cut - from));
            from = cut;
        }
        decoder.feed(ByteBuffer.wrap(bytes, from, bytes.length - from));
        return events;
    }

    @Test
    void shouldYieldTheSameEventsWhereverTheBytesAreSplit() {
        byte[] stream = ("data: {\"text\":\"caf\u00e9 \u2615\"}\n\n"
                + ": keep-alive comment\n\n"
                + "event: message\r\nid: 7\r\ndata: {\"text\":\"second\"}\r\n\r\n"
                + "data: [DONE]\n\n").getBytes(StandardCharsets.UTF_8);
        List<String> expected = List.of("{\"text\":\"caf\u00e9 \u2615\"}", "{\"text\":\"second\"}", "[DONE]");

        assertThat(decodeSplitAt(stream)).isEqualTo(expected);
        for (int a = 1; a < stream.length; a++) {
            assertThat(decodeSplitAt(stream, a)).as("split at %d", a).isEqualTo(expected);
            if (a + 3 < stream.length) {
                assertThat(decodeSplitAt(stream, a, a + 1, a + 3)).as("split at %d, %d, %d", a, a + 1, a + 3).isEqualTo(expected);
            }
        }
    }

    @Test
    void shouldRefuseAnEventJoinedFromManyLinesPastTheBoundAndReadNothingMore() {
        List<String> events = new ArrayList<>();
        SseDecoder decoder = new SseDecoder((type, data) -> events.add(data));
        byte[] line = ("data: " + "y".repeat(64 * 1024) + "\n").getBytes(StandardCharsets.UTF_8);
        int lines = SseDecoder.MAX_EVENT_CHARS / (64 * 1024) + 1;

        assertThatThrownBy(() -> {
            for (int i = 0; i < lines; i++) {
                decoder.feed(ByteBuffer.wrap(line));
            }
        }).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("event longer than " + SseDecoder.MAX_EVENT_CHARS);

        decoder.feed(ByteBuffer.wrap("\ndata: after\n\n".getBytes(StandardCharsets.UTF_8)));
        assertThat(events).isEmpty();
    }

    @Test
    void shouldHandOnErrorEventsWithTheirType() {
        byte[] stream = ("data: {\"text\":\"a\"}\n\n"
                + "error: {\"code\":500,\"message\":\"Compute error.\",\"type\":\"server_error\"}\n\n"
                + "event: error\ndata: {\"message\":\"boom\"}\n\n"
                + "event: error\n\n"
                + "data: [DONE]\n\n").getBytes(StandardCharsets.UTF_8);

        assertThat(decodeSplitAt(stream)).containsExactly("{\"text\":\"a\"}",
                "error: {\"code\":500,\"message\":\"Compute error.\",\"type\":\"server_error\"}",
                "error: {\"message\":\"boom\"}", "error: ", "[DONE]");
    }

    @Test
    void shouldJoinMultiLineDataWithNewlines() {
        byte[] stream = "data: first\ndata:second\n\n".getBytes(StandardCharsets.UTF_8);
        assertThat(decodeSplitAt(stream)).containsExactly("first\nsecond");
    }

    @Test
    void shouldNotYieldAnEventWithoutItsTerminatingBlankLine() {
        byte[] stream = "data: {\"a\":1}\n\ndata: {\"b\":2}\n".getBytes(StandardCharsets.UTF_8);
        assertThat(decodeSplitAt(stream)).containsExactly("{\"a\":1}");
    }
}
