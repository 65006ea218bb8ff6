package io.kvroute.bench.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.ingress.prompt.PromptFingerprint;
import io.kvroute.ingress.prompt.PromptHasher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SyntheticPromptTest {
    private final PromptHasher hasher = new PromptHasher(64);

    @Test
    void shouldGiveTheIngressHasherTheSharedBlocksTheTraceDescribes() {
        TraceRequest first = new TraceRequest(0, 1500, 10, new long[] {1, 2, 3}, 512);
        TraceRequest second = new TraceRequest(0, 1400, 10, new long[] {1, 2, 9}, 512);

        PromptFingerprint a = hasher.fingerprint(SyntheticPrompt.forRequest(first));
        PromptFingerprint b = hasher.fingerprint(SyntheticPrompt.forRequest(second));

        assertThat(a.promptTokenEstimate()).isEqualTo(1500);
        int shared = 0;
        while (shared < Math.min(a.blockCount(), b.blockCount()) && a.blockHashes()[shared] == b.blockHashes()[shared]) {
            shared++;
        }
        // two 512-token trace blocks in common = 16 blocks of 64 tokens; the third differs
        assertThat(shared).isEqualTo(16);
    }

    @Test
    void shouldBuildTheSameTextForTheSameBlockIds() {
        TraceRequest request = new TraceRequest(0, 700, 1, new long[] {42, 43}, 512);
        assertThat(SyntheticPrompt.forRequest(request)).isEqualTo(SyntheticPrompt.forRequest(request)).hasSize(2800);
    }

    @Test
    void shouldReadTheBundledMooncakeTrace() {
        List<TraceRequest> requests = MooncakeTrace.read(Path.of("../traces/mooncake_fast25_synthetic/synthetic_trace.jsonl"), 5);
        assertThat(requests).hasSize(5);
        assertThat(requests.get(0).inputTokens()).isEqualTo(40160);
        assertThat(requests.get(0).blockIds()).hasSize(79);
        assertThat(Arrays.stream(requests.get(0).blockIds()).min().orElseThrow()).isZero();
    }

    @Test
    void shouldNameTheLineOfAMalformedTraceRecord(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("bad.jsonl");
        Files.writeString(trace, "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2, \"hash_ids\": [1]}\n{\"timestamp\": 5}\n");
        assertThatThrownBy(() -> MooncakeTrace.read(trace, 10)).hasMessageContaining("line 2");
    }
}
