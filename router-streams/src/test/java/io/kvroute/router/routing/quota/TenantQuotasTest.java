package io.kvroute.router.routing.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.router.routing.RouteRequest;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TenantQuotasTest {
    private static final long NOW = 1_000_000L;

    private static RouteRequest request(String id, String tenant, int prompt, int maxTokens, long deadlineMs) {
        return new RouteRequest(id, tenant, "m", prompt, null, 64, maxTokens, Set.of(), "BATCH", deadlineMs);
    }

    private static RouteRequest request(String id, String tenant, int prompt, int maxTokens) {
        return request(id, tenant, prompt, maxTokens, RouteRequest.NO_DEADLINE);
    }

    @Test
    void shouldAdmitWithinQuotaAndMakeTheNextRequestWaitUntilTheBucketRefills() {
        TenantQuotas quotas = new TenantQuotas(Map.of("a", new QuotaLimits(600, 6_000, OverQuota.WAIT)), QuotaLimits.NONE);

        assertThat(quotas.tryAcquire(request("r1", "a", 4_000, 1_000), NOW).admitted()).isTrue();
        QuotaDecision second = quotas.tryAcquire(request("r2", "a", 1_500, 500), NOW);

        assertThat(second.outcome()).isEqualTo(QuotaDecision.Outcome.WAIT);
        assertThat(second.retryAfterMs()).isEqualTo(10_000);
        assertThat(second.reason()).contains("6000 tokens per minute");
        assertThat(quotas.tryAcquire(request("r2", "a", 1_500, 500), NOW + 10_000).admitted()).isTrue();
    }

    @Test
    void shouldLimitRequestsPerMinute() {
        TenantQuotas quotas = new TenantQuotas(Map.of("a", new QuotaLimits(2, QuotaLimits.UNLIMITED, OverQuota.WAIT)), QuotaLimits.NONE);
        quotas.tryAcquire(request("r1", "a", 1, 1), NOW);
        quotas.tryAcquire(request("r2", "a", 1, 1), NOW);

        QuotaDecision third = quotas.tryAcquire(request("r3", "a", 1, 1), NOW);

        assertThat(third.outcome()).isEqualTo(QuotaDecision.Outcome.WAIT);
        assertThat(third.retryAfterMs()).isEqualTo(30_000);
    }

    @Test
    void shouldRejectOverQuotaWhenTheTenantSaysSo() {
        TenantQuotas quotas = new TenantQuotas(Map.of(), new QuotaLimits(1, 10_000, OverQuota.REJECT));
        quotas.tryAcquire(request("r1", "b", 10, 10), NOW);

        QuotaDecision second = quotas.tryAcquire(request("r2", "b", 10, 10), NOW + 1);

        assertThat(second.outcome()).isEqualTo(QuotaDecision.Outcome.REJECT);
        assertThat(second.reason()).contains("tenant b").contains("1 requests per minute");
    }

    @Test
    void shouldRejectARequestLargerThanAMinutesTokensOrOneThatWouldWaitPastItsDeadline() {
        TenantQuotas quotas = new TenantQuotas(Map.of("a", new QuotaLimits(100, 1_000, OverQuota.WAIT)), QuotaLimits.NONE);

        assertThat(quotas.tryAcquire(request("big", "a", 900, 101), NOW).outcome()).isEqualTo(QuotaDecision.Outcome.REJECT);
        assertThat(quotas.tryAcquire(request("r1", "a", 900, 100), NOW).admitted()).isTrue();
        assertThat(quotas.tryAcquire(request("r2", "a", 100, 0, NOW + 5_000), NOW).outcome()).isEqualTo(QuotaDecision.Outcome.REJECT);
        assertThat(quotas.tryAcquire(request("r3", "a", 100, 0, NOW + 6_000), NOW).outcome()).isEqualTo(QuotaDecision.Outcome.WAIT);
    }

    @Test
    void shouldRefundUnusedOutputAndChargeOverrunsWhenSettled() {
        TenantQuotas quotas = new TenantQuotas(Map.of("a", new QuotaLimits(100, 10_000, OverQuota.WAIT)), QuotaLimits.NONE);
        quotas.tryAcquire(request("r1", "a", 1_000, 4_000), NOW);
        assertThat(quotas.availableTokens("a", NOW)).isEqualTo(5_000.0);

        quotas.settle("r1", 1_200, NOW);
        assertThat(quotas.availableTokens("a", NOW)).isEqualTo(8_800.0);
        assertThat(quotas.openReservations()).isZero();

        quotas.tryAcquire(request("r2", "a", 1_000, 0), NOW);
        quotas.settle("r2", 9_000, NOW);
        assertThat(quotas.availableTokens("a", NOW)).isEqualTo(-200.0);
        quotas.settle("r2", 9_000, NOW);
        assertThat(quotas.availableTokens("a", NOW)).isEqualTo(-200.0);
    }

    @Test
    void shouldParseQuotasAndRefuseMalformedOnes() {
        assertThat(QuotaLimits.parseMap(QuotaLimits.EXAMPLE)).containsExactly(
                Map.entry("acme", new QuotaLimits(600, 1_000_000, OverQuota.WAIT)),
                Map.entry("bulk", new QuotaLimits(QuotaLimits.UNLIMITED, 5_000_000, OverQuota.REJECT)));
        assertThatThrownBy(() -> QuotaLimits.parseMap("acme=600")).hasMessageContaining("'acme=600'");
        assertThatThrownBy(() -> QuotaLimits.parseMap("acme=600/x")).hasMessageContaining("'acme=600/x'");
        assertThatThrownBy(() -> QuotaLimits.parseMap("acme=0/10")).hasMessageContaining("at least 1");
        assertThatThrownBy(() -> QuotaLimits.parseMap("acme=1/10/drop")).hasMessageContaining("'acme=1/10/drop'");
    }

    @Test
    void shouldAdmitEverythingForATenantWithoutQuota() {
        TenantQuotas quotas = TenantQuotas.unlimited();
        for (int i = 0; i < 10_000; i++) {
            assertThat(quotas.tryAcquire(request("r" + i, "a", 100_000, 100_000), NOW).admitted()).isTrue();
        }
    }

    @Test
    void shouldCarryLevelsAndOpenReservationsOverToAnotherInstance() {
        Map<String, QuotaLimits> limits = Map.of("a", new QuotaLimits(2, 1_000, OverQuota.REJECT));
        TenantQuotas first = new TenantQuotas(limits, QuotaLimits.NONE);
        assertThat(first.tryAcquire(request("r1", "a", 100, 700), NOW).admitted()).isTrue();

        TenantQuotas second = new TenantQuotas(limits, QuotaLimits.NONE);
        second.restoreLevels("a", first.levels("a").orElseThrow());
        second.restoreReservation("r1", "a", first.reservedTokens("r1").orElseThrow());

        assertThat(second.tryAcquire(request("r2", "a", 100, 700), NOW).outcome()).isEqualTo(QuotaDecision.Outcome.REJECT);
        second.settle("r1", 110, NOW);
        assertThat(second.tryAcquire(request("r2", "a", 100, 700), NOW).admitted()).isTrue();
        assertThat(second.reservedTokens("r1")).isEmpty();
        assertThat(new TenantQuotas(limits, QuotaLimits.NONE).levels("a")).isEmpty();
    }

    @Test
    void shouldForgetTenantsWhoseBucketsAreFullAgainButNotOnesWithAnOpenReservation() {
        TenantQuotas quotas = new TenantQuotas(Map.of(), new QuotaLimits(600, 60_000, OverQuota.WAIT));
        assertThat(quotas.tryAcquire(request("open", "holder", 100, 100), NOW).admitted()).isTrue();
        for (int i = 0; i < 5 * TenantQuotas.SWEEP_TENANTS_AT; i++) {
            String id = "r" + i;
            assertThat(quotas.tryAcquire(request(id, "tenant-" + i, 100, 100), NOW + i).admitted()).isTrue();
            quotas.release(id, NOW + i);
        }
        long later = NOW + 5 * TenantQuotas.SWEEP_TENANTS_AT + 60_000;
        assertThat(quotas.tryAcquire(request("late", "newcomer", 100, 100), later).admitted()).isTrue();

        assertThat(quotas.tenantsKept()).as("a minute later every released tenant's buckets are full again: forgotten")
                .isLessThanOrEqualTo(TenantQuotas.SWEEP_TENANTS_AT + 2);
        assertThat(quotas.levels("holder")).as("the tenant with a reservation still open is kept").isPresent();
        assertThat(quotas.drainForgotten()).as("told, for the saved levels to drop them").hasSizeGreaterThan(4 * TenantQuotas.SWEEP_TENANTS_AT)
                .doesNotContain("holder", "newcomer");
        assertThat(quotas.drainForgotten()).isEmpty();
    }
}
