package io.kvroute.bench.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class TenantResidencyTest {
    private static final List<String> FLEET = List.of("us-east", "eu-west", "ap-south");

    @Test
    void shouldKeepTenantsInTheirSharesRegionInOrderAndTheRestInTheLastShare() {
        TenantResidency residency = TenantResidency.parse("eu-west=28, ap-south=2,us-east", 150, FLEET);

        assertThat(residency.regionsOf(0)).containsExactly("eu-west");
        assertThat(residency.regionsOf(27)).containsExactly("eu-west");
        assertThat(residency.regionsOf(28)).containsExactly("ap-south");
        assertThat(residency.regionsOf(29)).containsExactly("ap-south");
        assertThat(residency.regionsOf(30)).containsExactly("us-east");
        assertThat(residency.regionsOf(149)).containsExactly("us-east");
        assertThat(residency).hasToString("eu-west=28,ap-south=2,us-east");
    }

    @Test
    void shouldLetTenantsPastTheCountedSharesRunAnywhere() {
        TenantResidency residency = TenantResidency.parse("eu-west=3", 10, FLEET);

        assertThat(residency.regionsOf(2)).containsExactly("eu-west");
        assertThat(residency.regionsOf(3)).isEmpty();
        assertThat(TenantResidency.NONE.regionsOf(0)).isEmpty();
    }

    @Test
    void shouldRefuseAShareItCannotKeepNamingIt() {
        assertThatThrownBy(() -> TenantResidency.parse("mars=2,us-east", 10, FLEET))
                .hasMessageContaining("share 'mars=2' names no region of the fleet");
        assertThatThrownBy(() -> TenantResidency.parse("us-east,eu-west=2", 10, FLEET))
                .hasMessageContaining("share 'us-east' takes the tenants left, so it must come last");
        assertThatThrownBy(() -> TenantResidency.parse("eu-west=8,us-east=3", 10, FLEET))
                .hasMessageContaining("share 'us-east=3' must keep at least 1 tenant and the shares at most the 10 tenants, counted 11");
        assertThatThrownBy(() -> TenantResidency.parse("eu-west=0", 10, FLEET)).hasMessageContaining("share 'eu-west=0'");
        assertThatThrownBy(() -> TenantResidency.parse("eu-west=two", 10, FLEET))
                .hasMessageContaining("share 'eu-west=two' is not region=tenants");
        assertThatThrownBy(() -> TenantResidency.parse("eu-west=2,eu-west", 10, FLEET))
                .hasMessageContaining("names region 'eu-west' twice");
        assertThatThrownBy(() -> TenantResidency.parse(" ", 10, FLEET)).hasMessageContaining("--tenant-residency is empty");
    }

    @Test
    void shouldRestrictEachGeneratedRequestToItsTenantsRegionAndChangeNothingElse() {
        TenantWorkload.Spec spec = TenantWorkload.Spec.llmdDefaults(600, 38.0, 42);
        List<TraceRequest> free = TenantWorkload.generate(spec);
        List<TraceRequest> kept = TenantWorkload.generate(spec, TenantResidency.parse("eu-west=30,us-east", 150, FLEET));

        Map<Set<String>, Set<String>> tenantsByRegions = kept.stream().collect(Collectors.groupingBy(TraceRequest::allowedRegions,
                Collectors.mapping(TraceRequest::tenant, Collectors.toSet())));
        assertThat(tenantsByRegions.keySet()).containsExactlyInAnyOrder(Set.of("eu-west"), Set.of("us-east"));
        assertThat(tenantsByRegions.get(Set.of("eu-west"))).allMatch(t -> Integer.parseInt(t.substring("tenant-".length())) < 30);
        assertThat(tenantsByRegions.get(Set.of("us-east"))).allMatch(t -> Integer.parseInt(t.substring("tenant-".length())) >= 30);
        assertThat(free).allMatch(r -> r.allowedRegions().isEmpty());
        for (int i = 0; i < free.size(); i++) {
            assertThat(kept.get(i).arrivalMs()).isEqualTo(free.get(i).arrivalMs());
            assertThat(kept.get(i).tenant()).isEqualTo(free.get(i).tenant());
            assertThat(kept.get(i).blockIds()).isEqualTo(free.get(i).blockIds());
            assertThat(kept.get(i).outputTokens()).isEqualTo(free.get(i).outputTokens());
        }
    }
}
