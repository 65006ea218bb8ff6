package io.kvroute.local.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class EncodedAheadTest {
    private final LoadtestWorkload workload = new LoadtestWorkload(List.of(new TraceRequest(0, 1024, 10, new long[] {0, 1}, 512)), 16,
            "lt-", Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
    private final AtomicInteger encodes = new AtomicInteger();
    // a stand-in for the Avro serializer: the id and prompt, so each request's bytes are its own
    private final Function<InferenceRequest, byte[]> encode = request -> {
        encodes.incrementAndGet();
        return (request.getRequestId() + "|" + request.getPrompt()).getBytes(StandardCharsets.UTF_8);
    };

    @Test
    void shouldEncodeAheadWhatTheBudgetHoldsAndTheRestWhenTaken() {
        int size = encode.apply(workload.request(0)).length; // every request's bytes are this long, give or take the id's digits
        encodes.set(0);
        EncodedAhead ahead = new EncodedAhead(10, workload::request, encode, 3L * size);

        assertThat(ahead.encodedAhead()).isEqualTo(3);
        assertThat(encodes).hasValue(3);
        for (int i = 0; i < 10; i++) {
            assertThat(new String(ahead.take(i), StandardCharsets.UTF_8)).startsWith("lt-" + i + "|");
        }
        assertThat(encodes).as("the seven beyond the budget are encoded as they are taken").hasValue(10);
        long chars = 0;
        for (int i = 0; i < 10; i++) {
            chars += workload.request(i).getPrompt().length();
        }
        assertThat(ahead.promptChars()).isEqualTo(chars);
    }

    @Test
    void shouldEncodeAllAheadWhenTheyFit() {
        EncodedAhead ahead = new EncodedAhead(5, workload::request, encode, Long.MAX_VALUE);

        assertThat(ahead.encodedAhead()).isEqualTo(5);
        assertThat(ahead.take(4)).isEqualTo(encode.apply(workload.request(4)));
        assertThatThrownBy(() -> ahead.take(5)).isInstanceOf(IndexOutOfBoundsException.class).hasMessage("request 5 of 5");
    }
}
