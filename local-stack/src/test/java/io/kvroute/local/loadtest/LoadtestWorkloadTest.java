package io.kvroute.local.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoadtestWorkloadTest {
    private static final List<TraceRequest> TRACE = List.of(
            new TraceRequest(0, 1024, 10, new long[] {0, 1}, 512),
            new TraceRequest(5, 1536, 20, new long[] {0, 1, 2}, 512));

    private final LoadtestWorkload workload = new LoadtestWorkload(TRACE, 16, "lt-", Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));

    @Test
    void shouldScalePromptsByTheBlockSize() {
        // 1536 tokens in 512-token blocks = 3 blocks = 48 tokens of 16
        assertThat(workload.traceRequest(1).inputTokens()).isEqualTo(48);
        assertThat(workload.request(1).getPrompt()).hasSize(48 * 4);
        assertThat(workload.request(1).getMaxTokens()).isEqualTo(20);
    }

    @Test
    void shouldShareAPrefixWithinAPassAndNotWithThePassBefore() {
        InferenceRequest a = workload.request(0);
        InferenceRequest b = workload.request(1);
        InferenceRequest nextPass = workload.request(2);
        assertThat(b.getPrompt()).startsWith(a.getPrompt());
        assertThat(workload.traceRequest(2).blockIds()).containsExactly(3, 4);
        assertThat(nextPass.getPrompt()).isNotEqualTo(a.getPrompt()).hasSameSizeAs(a.getPrompt());
    }

    @Test
    void shouldNameEachRequestByItsIndex() {
        assertThat(workload.request(7).getRequestId()).isEqualTo("lt-7");
        assertThat(workload.request(7).getTenant()).isEqualTo(LoadtestWorkload.TENANT);
        // 48 tokens: less than one of the ingress hasher's 64-token blocks
        assertThat(workload.request(7).getPrefixBlockHashes()).isEmpty();
        assertThat(new LoadtestWorkload(TRACE, 64, "lt-", Clock.systemUTC()).request(1).getPrefixBlockHashes()).hasSize(3);
    }
}
