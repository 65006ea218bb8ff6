package io.kvroute.router.routing;

import static io.kvroute.router.routing.Fleet.NOW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ResidencyTest {
    private final Residency residency = new Residency(Map.of("eu-bank", Set.of("eu-west", "eu-central")));

    private static RouteRequest request(String tenant, Set<String> allowed) {
        return new RouteRequest("r-" + tenant, tenant, Fleet.MODEL, 100, null, 64, 10, allowed, "BATCH", RouteRequest.NO_DEADLINE);
    }

    @Test
    void shouldIntersectTheRequestsAndTheTenantsRegions() {
        assertThat(residency.constrain(request("eu-bank", Set.of("eu-west", "us-east"))).orElseThrow().allowedRegions())
                .containsExactly("eu-west");
        assertThat(residency.constrain(request("eu-bank", Set.of())).orElseThrow().allowedRegions())
                .containsExactlyInAnyOrder("eu-west", "eu-central");
        assertThat(residency.constrain(request("other", Set.of("us-east"))).orElseThrow().allowedRegions())
                .containsExactly("us-east");
        assertThat(residency.constrain(request("other", Set.of())).orElseThrow().allowedRegions()).isEmpty();
    }

    @Test
    void shouldRefuseARequestWhoseRegionsTheTenantForbids() {
        RouteRequest usOnly = request("eu-bank", Set.of("us-east"));
        assertThat(residency.constrain(usOnly)).isEmpty();
        assertThat(residency.conflict(usOnly)).contains("[us-east]").contains("[eu-central, eu-west]");
        assertThat(residency.permits(usOnly, "us-east")).isFalse();
    }

    @Test
    void shouldParseTenantRegionsAndRefuseMalformedOnes() {
        Residency parsed = Residency.parse(Residency.EXAMPLE);

        assertThat(parsed.tenantRegions("eu-bank")).containsExactlyInAnyOrder("eu-west", "eu-central");
        assertThat(parsed.tenantRegions("us-health")).containsExactly("us-east");
        assertThat(parsed.tenantRegions("anyone")).isEmpty();
        assertThatThrownBy(() -> Residency.parse("eu-bank")).hasMessageContaining("'eu-bank'");
        assertThatThrownBy(() -> Residency.parse("a=x,a=y")).hasMessageContaining("'a=y'");
    }

    @Test
    void shouldNeverPlaceOutsideTheAllowedRegionsWhateverTheFleetState() {
        RoutingSettings settings = RoutingSettings.defaults().withKnownRegions(Set.of("us-east", "eu-west", "eu-central"));
        SplittableRandom random = new SplittableRandom(7);
        int placed = 0;
        int parked = 0;
        for (String policy : Policies.names()) {
            RouterState state = new RouterState(settings);
            Router router = new Router(Policies.create(policy, state), state);
            for (int i = 0; i < 300; i++) {
                List<WorkerSnapshot> fleet = new ArrayList<>();
                for (String region : List.of("us-east", "eu-west", "eu-central")) {
                    for (int w = 0; w < 3; w++) {
                        int load = random.nextInt(600);
                        fleet.add(WorkerSnapshot.builder(region + "-" + w, region).observedAtMs(NOW - random.nextInt(3_000))
                                .maxRunning(256).running(Math.min(load, 256)).waiting(Math.max(0, load - 256))
                                .kvBlocks(28_000, random.nextInt(28_000))
                                .status(random.nextInt(5) == 0 ? WorkerHealth.DEGRADED : WorkerHealth.HEALTHY)
                                .rateLimitedUntilMs(random.nextInt(4) == 0 ? NOW + 1_000 : 0).build());
                    }
                }
                if (random.nextInt(3) == 0) {
                    state.cooldowns().onRateLimited("eu-west-0", "eu-west", 500, true, NOW - random.nextInt(1_000));
                }
                RouteRequest r = residency.constrain(new RouteRequest(policy + i, "eu-bank", Fleet.MODEL, 1 + random.nextInt(4_000),
                        Fleet.blocks(1 + random.nextInt(30), random.nextInt(5)), 64, 256, Set.of(), "BATCH",
                        RouteRequest.NO_DEADLINE)).orElseThrow();
                RoutingResult result = router.route(r, fleet, NOW);
                if (result.placed()) {
                    placed++;
                    assertThat(result.placement().orElseThrow().region()).isIn("eu-west", "eu-central");
                } else {
                    parked++;
                }
            }
        }
        assertThat(placed).isPositive();
        assertThat(parked).isPositive();
    }
}
