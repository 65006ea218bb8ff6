package io.kvroute.ingress.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;
import static org.assertj.core.api.Assertions.tuple;

import io.kvroute.schemas.v1.ResponseStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UsageReportTest {
    private static final Map<String, Double> PRICES = Map.of("us-east", 0.20, "eu-west", 0.50);

    @Test
    void shouldSumTokensAndPriceThemPerTenantModelAndRegion() {
        List<Completion> results = List.of(
                result("acme", "llama-8b", "us-east", 1_000, 200, 50, 10),
                result("acme", "llama-8b", "us-east", 3_000, 0, 150, 20),
                result("acme", "llama-8b", "eu-west", 2_000, 1_000, 100, 30),
                result("globex", "llama-70b", "us-east", 500, 0, 500, 40));

        UsageReport report = UsageReport.of(results, Long.MIN_VALUE, null, r -> PRICES.getOrDefault(r, 0.0));

        assertThat(report.rows()).extracting(UsageReport.Row::tenant, UsageReport.Row::region, UsageReport.Row::requests)
                .containsExactly(tuple("acme", "eu-west", 1L), tuple("acme", "us-east", 2L),
                        tuple("globex", "us-east", 1L));
        UsageReport.Row east = report.rows().get(1);
        assertThat(east.promptTokens()).isEqualTo(4_000);
        assertThat(east.cachedTokens()).isEqualTo(200);
        assertThat(east.completionTokens()).isEqualTo(200);
        assertThat(east.cost()).isCloseTo((4_000 + 200) * 0.20 / 1e6, offset(1e-12));
        assertThat(report.total().requests()).isEqualTo(4);
        assertThat(report.total().cost()).isCloseTo((4_200 * 0.20 + 2_100 * 0.50 + 1_000 * 0.20) / 1e6,
                offset(1e-12));
    }

    @Test
    void shouldKeepOneTenantAndTheResultsSinceAMoment() {
        List<Completion> results = List.of(result("acme", "m", "us-east", 10, 0, 1, 10), result("acme", "m", "us-east", 20, 0, 2, 100),
                result("globex", "m", "us-east", 30, 0, 3, 100));

        UsageReport report = UsageReport.of(results, 50, "acme", r -> 0.0);

        assertThat(report.rows()).singleElement().satisfies(row -> {
            assertThat(row.tenant()).isEqualTo("acme");
            assertThat(row.promptTokens()).isEqualTo(20);
        });
    }

    @Test
    void shouldCountAResultOfAnOlderWorkerUnderUnknown() {
        Completion old = new Completion("r", null, ResponseStatus.COMPLETED, "", "stop", new TokenUsage(5, 1, 0), null, null, null, null, 1,
                1, true);

        assertThat(UsageReport.of(List.of(old), 0, null, r -> 1.0).rows()).singleElement().satisfies(row -> {
            assertThat(row.tenant()).isEqualTo(UsageReport.UNKNOWN);
            assertThat(row.cost()).as("no region, no price").isZero();
        });
    }

    private static Completion result(String tenant, String model, String region, int prompt, int cached, int completion, long at) {
        return new Completion("r-" + tenant + at + prompt, null, ResponseStatus.COMPLETED, "", "stop", new TokenUsage(prompt, completion, cached),
                10L, "w", region, null, 1, at, true, tenant, model);
    }
}
