package io.kvroute.bench.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceFormatsTest {
    @TempDir
    Path dir;

    @Test
    void shouldReadAzureRecordsWithRelativeArrivalsAndBlocksOfTheirOwn() throws Exception {
        Path csv = dir.resolve("azure.csv");
        Files.writeString(csv, """
                TIMESTAMP,ContextTokens,GeneratedTokens
                2023-11-16 18:17:03.9799600,4808,10
                2023-11-16 18:17:04.0319600,512,8
                2023-11-16 18:17:05.0000000,513,1
                """);

        List<TraceRequest> trace = Traces.load(csv, "azure", 100);

        assertThat(trace).extracting(TraceRequest::arrivalMs).containsExactly(0L, 52L, 1020L);
        assertThat(trace).extracting(TraceRequest::inputTokens).containsExactly(4808, 512, 513);
        assertThat(trace).extracting(TraceRequest::outputTokens).containsExactly(10, 8, 1);
        assertThat(trace).extracting(r -> r.blockIds().length).containsExactly(10, 1, 2);
        Set<Long> ids = new HashSet<>();
        trace.forEach(r -> {
            for (long id : r.blockIds()) {
                assertThat(ids.add(id)).isTrue();
            }
        });
        assertThat(Traces.load(csv, "azure", 2)).hasSize(2);
    }

    @Test
    void shouldRejectAnAzureFileWithoutItsHeaderOrWithABadLine() throws Exception {
        Path noHeader = dir.resolve("bad.csv");
        Files.writeString(noHeader, "a,b,c\n");
        Path badLine = dir.resolve("badline.csv");
        Files.writeString(badLine, "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.9799600,x,10\n");

        assertThatThrownBy(() -> AzureTrace.read(noHeader, 10)).hasMessageContaining("header");
        assertThatThrownBy(() -> AzureTrace.read(badLine, 10)).hasMessageContaining("line 2");
    }

    @Test
    void shouldReadMooncakeRecordsAndScaleTheirLoad() throws Exception {
        Path jsonl = dir.resolve("m.jsonl");
        Files.writeString(jsonl, """
                {"timestamp": 0, "input_length": 600, "output_length": 6, "hash_ids": [0, 1]}
                {"timestamp": 1000, "input_length": 700, "output_length": 4, "hash_ids": [0, 2]}
                """);

        List<TraceRequest> trace = Traces.scaleLoad(Traces.load(jsonl, "mooncake", 10), 2.0);

        assertThat(trace).extracting(TraceRequest::arrivalMs).containsExactly(0L, 500L);
        assertThat(trace.get(1).blockIds()).containsExactly(0, 2);
        assertThat(trace.get(0).blockTokens()).isEqualTo(512);
        assertThatThrownBy(() -> Traces.scaleLoad(trace, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldGenerateTenantsSharingTheirLongPrefixAtTheAskedRate() {
        TenantWorkload.Spec spec = TenantWorkload.Spec.llmdDefaults(4_000, 40.0, 7);
        List<TraceRequest> trace = TenantWorkload.generate(spec);

        assertThat(trace).hasSize(4_000);
        assertThat(trace).isSortedAccordingTo(java.util.Comparator.comparingLong(TraceRequest::arrivalMs));
        double rate = trace.size() * 1000.0 / trace.get(trace.size() - 1).arrivalMs();
        assertThat(rate).isBetween(36.0, 44.0);
        int sharedBlocks = spec.prefixTokens() / TenantWorkload.BLOCK_TOKENS;
        java.util.Map<String, List<TraceRequest>> byTenant = trace.stream().collect(Collectors.groupingBy(TraceRequest::tenant));
        assertThat(byTenant.size()).isBetween(140, 150);
        for (List<TraceRequest> requests : byTenant.values()) {
            long[] prefix = java.util.Arrays.copyOf(requests.get(0).blockIds(), sharedBlocks);
            for (TraceRequest r : requests) {
                assertThat(java.util.Arrays.copyOf(r.blockIds(), sharedBlocks)).isEqualTo(prefix);
                assertThat(r.inputTokens()).isBetween(spec.prefixTokens() + 900, spec.prefixTokens() + 1500);
            }
        }
        assertThat(TenantWorkload.generate(spec)).extracting(TraceRequest::arrivalMs)
                .isEqualTo(trace.stream().map(TraceRequest::arrivalMs).toList());
    }
}
