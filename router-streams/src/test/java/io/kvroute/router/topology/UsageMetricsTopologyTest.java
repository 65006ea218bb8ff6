package io.kvroute.router.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.schemas.topics.RunAttempt;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.TerminalResult;
import io.kvroute.schemas.v1.Usage;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each finished request's tokens and spend are counted once per tenant, model and region, at the region's price. */
class UsageMetricsTopologyTest {
    @TempDir
    Path stateDir;

    @Test
    void shouldCountAFinishedRequestsTokensAndSpendOnceByTenantModelAndRegion() {
        try (TopologyHarness harness = new TopologyHarness(stateDir, Map.of("router.region.profiles", "us-east@5:0.40,eu-west@40:0.40"))) {
            harness.report(Records.telemetry("east-1", "us-east", List.of(0), harness.now()));
            harness.send(Records.request("req-1", harness.now()).setTenant("acme").build());
            harness.decisions.readValue();
            ResponseEvent completed = harness.completed("req-1", RunAttempt.of(1, 1), 1_000, 200);
            ResponseEvent withCache = ResponseEvent.newBuilder(completed).setTerminal(TerminalResult.newBuilder(completed.getTerminal())
                    .setUsage(Usage.newBuilder().setPromptTokens(1_000).setCompletionTokens(200).setCachedTokens(600).build()).build())
                    .build();

            harness.responsesIn.pipeInput("req-1", withCache);
            harness.responsesIn.pipeInput("req-1", withCache);

            MeterRegistry registry = harness.metrics.registry();
            assertThat(tokens(registry, "prompt")).as("counted once, though the result was read twice").isEqualTo(1_000);
            assertThat(tokens(registry, "cached")).isEqualTo(600);
            assertThat(tokens(registry, "completion")).isEqualTo(200);
            assertThat(registry.counter(RouterMetrics.USAGE_SPEND, "tenant", "acme", "model", "llama-3.1-8b", "region", "us-east").count())
                    .isCloseTo(1_200 * 0.40 / 1e6, offset(1e-12));
        }
    }

    private static double tokens(MeterRegistry registry, String kind) {
        return registry.counter(RouterMetrics.USAGE_TOKENS, "tenant", "acme", "model", "llama-3.1-8b", "region", "us-east", "kind", kind)
                .count();
    }
}
