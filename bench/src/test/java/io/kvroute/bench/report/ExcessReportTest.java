package io.kvroute.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvroute.bench.sim.Bounds;
import io.kvroute.bench.sim.EstimateError;
import io.kvroute.bench.sim.Latency;
import io.kvroute.bench.sim.PolicyResult;
import io.kvroute.bench.sim.Slowdown;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExcessReportTest {
    private final PolicyResult result = new PolicyResult("round-robin", 3, 0, 0, new Latency(80, 90, 400, 150), Latency.EMPTY,
            new long[] {80, 90, 400}, 0.5, 0, 1, 1, 1, Map.of("r", 3), 0, 0.8, EstimateError.NONE, new int[] {0, 1, 2},
            new Latency(12, 40, 345, 132.3333), new Slowdown(1.25, 7.123456));
    private final BenchReport report = new BenchReport("generated", "conversation", 3, "r=2@10", "e", 1.0, 42, 2000, 32,
            Map.of("round-robin", result), new Bounds(0.5, new Latency(55, 60, 70, 60)));

    @Test
    void shouldWriteEachPolicysTtftExcessAndSlowdownNextToItsTtft() {
        JsonNode policy = JsonReport.toJson(report).path("policies").path("round-robin");

        assertThat(policy.path("ttft_excess_ms").path("p50").asDouble()).isEqualTo(12);
        assertThat(policy.path("ttft_excess_ms").path("p90").asDouble()).isEqualTo(40);
        assertThat(policy.path("ttft_excess_ms").path("p99").asDouble()).isEqualTo(345);
        assertThat(policy.path("ttft_excess_ms").path("mean").asDouble()).isEqualTo(132.3);
        assertThat(policy.path("slowdown").path("p50").asDouble()).isEqualTo(1.25);
        assertThat(policy.path("slowdown").path("p99").asDouble()).isEqualTo(7.123);
        assertThat(policy.has("ttft_ms")).isTrue();
    }

    @Test
    void shouldPrintTheP50AndP99ExcessAsColumns() {
        String[] lines = ComparisonTable.format(report).split("\n");
        String header = java.util.Arrays.stream(lines).filter(l -> l.startsWith("policy")).findFirst().orElseThrow();
        String row = java.util.Arrays.stream(lines).filter(l -> l.startsWith("round-robin")).findFirst().orElseThrow();

        assertThat(header.split("\\s+")).containsSubsequence("ttft_p99", "excess_p50", "excess_p99", "e2e_p50");
        assertThat(row.split("\\s+")).containsSubsequence("400", "12", "345");
    }
}
