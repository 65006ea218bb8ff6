package io.kvroute.bench.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConversationWorkloadTest {
    private static final int N = 3_000;
    private final ConversationWorkload.Spec spec = ConversationWorkload.Spec.defaults(N, 7);

    @Test
    void shouldGenerateTheSameTraceForTheSameSeedAndAnotherForAnother() {
        List<TraceRequest> a = ConversationWorkload.generate(spec);
        List<TraceRequest> b = ConversationWorkload.generate(spec);
        List<TraceRequest> other = ConversationWorkload.generate(ConversationWorkload.Spec.defaults(N, 8));

        assertThat(a).hasSize(N);
        for (int i = 0; i < N; i++) {
            assertThat(b.get(i).arrivalMs()).isEqualTo(a.get(i).arrivalMs());
            assertThat(b.get(i).inputTokens()).isEqualTo(a.get(i).inputTokens());
            assertThat(b.get(i).outputTokens()).isEqualTo(a.get(i).outputTokens());
            assertThat(b.get(i).tenant()).isEqualTo(a.get(i).tenant());
            assertThat(b.get(i).blockIds()).isEqualTo(a.get(i).blockIds());
        }
        assertThat(other.stream().map(TraceRequest::arrivalMs).toList()).isNotEqualTo(a.stream().map(TraceRequest::arrivalMs).toList());
    }

    @Test
    void shouldOrderArrivals() {
        List<TraceRequest> trace = ConversationWorkload.generate(spec);

        assertThat(trace).extracting(TraceRequest::arrivalMs).isSorted();
        assertThat(trace.get(0).arrivalMs()).isGreaterThanOrEqualTo(0);
    }

    /** A session's turns, in order: each next prompt = this prompt + its answer + a new user message, after the answer. */
    @Test
    void shouldExtendEachTurnsPromptWithItsAnswerAndTheNextMessage() {
        List<List<TraceRequest>> sessions = ConversationWorkload.sessions(spec);
        int followed = 0;
        for (List<TraceRequest> turns : sessions) {
            for (int t = 0; t + 1 < turns.size(); t++) {
                TraceRequest turn = turns.get(t);
                TraceRequest next = turns.get(t + 1);
                int whole = turn.inputTokens() / ConversationWorkload.BLOCK_TOKENS;
                assertThat(Arrays.copyOf(next.blockIds(), whole)).as("whole blocks of turn %d", t)
                        .isEqualTo(Arrays.copyOf(turn.blockIds(), whole));
                if (whole < turn.blockIds().length) {
                    // the partial last block is filled with the answer by the next turn: new content, new id
                    assertThat(next.blockIds()[whole]).isNotEqualTo(turn.blockIds()[whole]);
                }
                assertThat(next.inputTokens()).isGreaterThan(turn.inputTokens() + turn.outputTokens());
                assertThat(next.arrivalMs()).isGreaterThan(turn.arrivalMs());
                assertThat(next.tenant()).isEqualTo(turn.tenant());
                followed++;
            }
        }
        assertThat(followed).as("turns that have a next turn").isGreaterThan(N / 4);
    }

    @Test
    void shouldShareAnApplicationsSystemPromptBlocksAcrossItsSessionsAndNothingElse() {
        List<TraceRequest> trace = ConversationWorkload.generate(ConversationWorkload.Spec.defaults(N, 7));
        int systemBlocks = ConversationWorkload.Spec.DEFAULT_SYSTEM_PROMPT_TOKENS / ConversationWorkload.BLOCK_TOKENS;
        Map<String, long[]> prefixByApplication = new HashMap<>();
        Map<Long, Integer> positionOf = new HashMap<>();
        for (TraceRequest r : trace) {
            long[] prefix = prefixByApplication.computeIfAbsent(r.tenant(), t -> Arrays.copyOf(r.blockIds(), systemBlocks));
            assertThat(Arrays.copyOf(r.blockIds(), systemBlocks)).isEqualTo(prefix);
            for (int b = 0; b < r.blockIds().length; b++) {
                // prefix-chained: an id never appears at two positions
                Integer previous = positionOf.put(r.blockIds()[b], b);
                assertThat(previous).as("position of block %d", r.blockIds()[b]).isIn(null, b);
            }
        }
        assertThat(prefixByApplication).hasSize(ConversationWorkload.Spec.DEFAULT_APPLICATIONS);
        assertThat(prefixByApplication.values().stream().map(p -> p[0]).distinct()).hasSize(ConversationWorkload.Spec.DEFAULT_APPLICATIONS);
    }

    @Test
    void shouldKeepTheDefaultsNearThePublishedMeans() {
        List<TraceRequest> trace = ConversationWorkload.generate(ConversationWorkload.Spec.defaults(20_000, 42));
        double meanAnswer = trace.stream().mapToInt(TraceRequest::outputTokens).average().orElseThrow();
        int[] inputs = trace.stream().mapToInt(TraceRequest::inputTokens).sorted().toArray();
        double meanTurns = ConversationWorkload.sessions(ConversationWorkload.Spec.defaults(20_000, 42)).stream()
                .mapToInt(List::size).average().orElseThrow();

        assertThat(meanAnswer).isBetween(200.0, 230.0); // LMSYS-Chat-1M 214.5
        assertThat(inputs[inputs.length / 2]).isBetween(900, 1150); // Azure conversation median 1,020
        assertThat(meanTurns).isBetween(1.9, 2.1); // LMSYS-Chat-1M 2.0
    }

    @Test
    void shouldRejectABadParameterNamingIt() {
        ConversationWorkload.Spec d = spec;
        assertThatThrownBy(() -> d.withSessionsPerSecond(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("conversation workload: sessionsPerSecond must be a finite number > 0, was 0");
        assertThatThrownBy(() -> d.withSessionsPerSecond(Double.NaN)).hasMessageContaining("sessionsPerSecond").hasMessageContaining("NaN");
        assertThatThrownBy(() -> new ConversationWorkload.Spec(1, 0, 900, 69.5, 1, 214.5, 0.7, 2, 32, 10, 1, 20, N, 1))
                .hasMessage("conversation workload: applications must be at least 1, was 0");
        assertThatThrownBy(() -> new ConversationWorkload.Spec(1, 8, 900, 69.5, 1, 214.5, 0.7, 0.5, 32, 10, 1, 20, N, 1))
                .hasMessage("conversation workload: meanTurns must be at least 1, was 0.5");
        assertThatThrownBy(() -> new ConversationWorkload.Spec(1, 8, 900, 69.5, -1, 214.5, 0.7, 2, 32, 10, 1, 20, N, 1))
                .hasMessage("conversation workload: userTokensSigma must be a finite number >= 0, was -1");
        assertThatThrownBy(() -> new ConversationWorkload.Spec(1, 8, 900_000, 69.5, 1, 214.5, 0.7, 2, 32, 10, 1, 20, N, 1))
                .hasMessage("conversation workload: systemPromptTokens must be at most 32768, was 900000");
        assertThatThrownBy(() -> new ConversationWorkload.Spec(1, 8, 900, 69.5, 1, 214.5, 0.7, 2, 32, 0, 1, 20, N, 1))
                .hasMessageContaining("medianThinkSeconds");
        assertThatThrownBy(() -> new ConversationWorkload.Spec(1, 8, 900, 69.5, 1, 214.5, 0.7, 2, 32, 10, 1, 20, -3, 1))
                .hasMessage("conversation workload: requests must be at least 0, was -3");
    }

    @Test
    void shouldBeAGeneratedFormat() {
        assertThat(Traces.FORMATS).contains("conversation");
        assertThat(Traces.GENERATED).containsExactly("tenants", "conversation");
    }
}
