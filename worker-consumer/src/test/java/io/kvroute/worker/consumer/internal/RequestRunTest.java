package io.kvroute.worker.consumer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.worker.engine.EngineFailure;
import io.kvroute.worker.engine.EngineUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;

class RequestRunTest {
    private final Serde<ResponseEvent> serde = Serdes.forRegistryUrl("mock://request-run").valueSerde(ResponseEvent.class);
    private final List<ResponseEvent> chunks = new ArrayList<>();
    private final List<Outcome> outcomes = new ArrayList<>();
    private final RequestRun run = new RequestRun(new ResponseEvents("r", "c", 2, "w", "us-east"), new TopicPartition("d", 0), 7, 1,
            4, (id, e) -> {
                chunks.add(e);
                return CompletableFuture.completedFuture(null);
            }, outcomes::add, n -> { }, () -> 1000L);

    @Test
    void shouldChunkTokensAndNumberTheTerminalAfterTheLastChunk() {
        for (int i = 0; i < 10; i++) {
            run.onTokens(" w" + i, 1);
        }
        run.onFinished("length", new EngineUsage(5, 10, 0), 12);

        assertThat(chunks).extracting(ResponseEvent::getSequence).containsExactly(0, 1, 2);
        assertThat(chunks).extracting(ResponseEvent::getTextDelta).containsExactly(" w0 w1 w2 w3", " w4 w5 w6 w7", " w8 w9");
        assertThat(chunks).allMatch(c -> c.getAttempt() == 2 && c.getTerminal() == null);
        assertThat(outcomes).hasSize(1);
        ResponseEvent terminal = outcomes.get(0).terminal();
        assertThat(terminal.getSequence()).isEqualTo(3);
        assertThat(terminal.getTerminal().getStatus()).isEqualTo(ResponseStatus.COMPLETED);
        assertThat(terminal.getTerminal().getTtftMs()).isEqualTo(12);
        assertThat(outcomes.get(0).offset()).isEqualTo(7);
    }

    @Test
    void shouldKeepTokensPendingWhenAChunkCannotBeSent() {
        List<ResponseEvent> sent = new ArrayList<>();
        int[] calls = {0};
        RequestRun flaky = new RequestRun(new ResponseEvents("r", null, 1, "w", "us-east"), new TopicPartition("d", 0), 1, 1, 2,
                (id, e) -> {
                    if (calls[0]++ == 0) {
                        throw new org.apache.kafka.common.errors.SerializationException("registry hiccup");
                    }
                    sent.add(e);
                    return CompletableFuture.completedFuture(null);
                }, outcomes::add, n -> { }, () -> 1000L);
        flaky.onTokens(" a", 1);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> flaky.onTokens(" b", 1)).hasMessageContaining("hiccup");
        flaky.onTokens(" c", 1);
        flaky.onFinished("length", new EngineUsage(1, 3, 0), 5);

        assertThat(sent).extracting(ResponseEvent::getSequence).containsExactly(0);
        assertThat(sent.get(0).getTextDelta()).isEqualTo(" a b c");
        assertThat(outcomes.get(0).terminal().getSequence()).isEqualTo(1);
    }

    @Test
    void shouldEndOnlyOnce() {
        run.onTokens(" a", 1);
        run.onFailed("boom");
        run.onFinished("length", new EngineUsage(5, 1, 0), 3);
        run.onTokens(" late", 1);
        assertThat(outcomes).hasSize(1);
        assertThat(chunks).hasSize(1);
        ResponseEvent terminal = outcomes.get(0).terminal();
        assertThat(terminal.getTerminal().getStatus()).isEqualTo(ResponseStatus.FAILED);
        assertThat(terminal.getTerminal().getError()).isEqualTo("boom");
    }

    @Test
    void shouldEndRejectedWhenTheServerRefusesTheRequest() {
        run.onFailure(new EngineFailure(EngineFailure.Kind.REJECTED, "server rejected the request (HTTP 400): too long"));

        assertThat(outcomes).singleElement().satisfies(o -> {
            assertThat(o.kind()).isEqualTo(Outcome.Kind.REJECTED);
            assertThat(o.terminal().getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
            assertThat(o.terminal().getTerminal().getError()).isEqualTo("server rejected the request (HTTP 400): too long");
        });
    }

    @Test
    void shouldEndFailedOnARetryableFailureAfterItsChunks() {
        run.onTokens(" a", 1);
        run.onFailure(new EngineFailure(EngineFailure.Kind.SERVER_ERROR, "server error (HTTP 503)"));

        assertThat(chunks).hasSize(1);
        assertThat(outcomes).singleElement().satisfies(o -> {
            assertThat(o.kind()).isEqualTo(Outcome.Kind.FAILED);
            assertThat(o.terminal().getSequence()).isEqualTo(1);
            assertThat(o.terminal().getTerminal().getStatus()).isEqualTo(ResponseStatus.FAILED);
            assertThat(o.terminal().getTerminal().getError()).isEqualTo("server error: server error (HTTP 503)");
        });
    }

    @Test
    void shouldHandARateLimitedRunBackToTheRouterWithoutAResult() {
        run.onTokens(" a", 1);
        run.onFailure(new EngineFailure(EngineFailure.Kind.RATE_LIMITED, "server rate limit (HTTP 429)"));
        run.onFailed("a late failure changes nothing");

        assertThat(chunks).as("tokens not yet sent stay unsent: the next attempt outranks this run").isEmpty();
        assertThat(outcomes).singleElement().satisfies(o -> {
            assertThat(o.kind()).isEqualTo(Outcome.Kind.HANDED_BACK);
            assertThat(o.terminal().getTerminal()).as("not a result").isNull();
            assertThat(o.terminal().getTextDelta()).isNull();
            assertThat(o.terminal().getHandedBack()).isEqualTo("rate limited: server rate limit (HTTP 429)");
            assertThat(o.terminal().getSequence()).isZero();
        });
    }
}
