package io.kvroute.router.routing;

import static io.kvroute.router.routing.Fleet.NOW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RegionPreferenceTest {
    private static final RoutingSettings SETTINGS = RoutingSettings.defaults()
            .withKnownRegions(Set.of("us-east", "eu-west", "provider"));

    private static RouteRequest request(String id, String priority) {
        return new RouteRequest(id, "t", Fleet.MODEL, 2_000, Fleet.blocks(4, 1), 512, 100, Set.of(), priority, RouteRequest.NO_DEADLINE);
    }

    private static Placement place(RegionCatalog catalog, RouteRequest request, List<WorkerSnapshot> workers) {
        RouterState state = new RouterState(SETTINGS, new KvEventIndex(1_000), catalog);
        return new KvAwarePolicy(state).place(request, workers, NOW).orElseThrow();
    }

    private static WorkerSnapshot idle(String id, String region) {
        return WorkerSnapshot.builder(id, region).observedAtMs(NOW).build();
    }

    private static WorkerSnapshot queued(String id, String region, long queuedTokens) {
        return WorkerSnapshot.builder(id, region).observedAtMs(NOW).queuedPrefillTokens(queuedTokens).waiting(20).build();
    }

    private static RegionCatalog priced() {
        return new RegionCatalog(List.of(new RegionProfile("us-east", 5, 0.30, false),
                new RegionProfile("eu-west", 40, 0.20, false), new RegionProfile("provider", 60, 0.10, true)), 2_000, 30_000);
    }

    @Test
    void shouldPreferTheCheapestRegionThatMeetsTheTarget() {
        Placement p = place(priced(), request("r1", "INTERACTIVE"),
                List.of(idle("us-1", "us-east"), idle("eu-1", "eu-west"), idle("pr-1", "provider")));

        assertThat(p.region()).isEqualTo("provider");
        assertThat(p.reason()).startsWith("cheapest region provider");
        assertThat(p.topCandidates().get(0).components().get("network_ms")).isEqualTo(120.0);
    }

    @Test
    void shouldSpillToTheNextCheapestRegionWhenTheCheapestMissesTheInteractiveTarget() {
        List<WorkerSnapshot> fleet = List.of(idle("us-1", "us-east"), idle("eu-1", "eu-west"), queued("pr-1", "provider", 200_000));

        assertThat(place(priced(), request("r1", "INTERACTIVE"), fleet).region()).isEqualTo("eu-west");
        assertThat(place(priced(), request("r2", "BATCH"), fleet).region()).isEqualTo("provider");
    }

    @Test
    void shouldTakeTheLowestEstimateWhenNoRegionMeetsTheTarget() {
        List<WorkerSnapshot> fleet = List.of(queued("us-1", "us-east", 150_000), queued("eu-1", "eu-west", 300_000),
                queued("pr-1", "provider", 400_000));

        Placement p = place(priced(), request("r1", "INTERACTIVE"), fleet);

        assertThat(p.region()).isEqualTo("us-east");
        assertThat(p.reason()).startsWith("no region meets the 2000 ms TTFT target");
    }

    @Test
    void shouldParseRegionProfilesAndRefuseMalformedOnes() {
        assertThat(RegionProfile.parseList(RegionProfile.EXAMPLE)).containsExactly(new RegionProfile("us-east", 5, 0.30, false),
                new RegionProfile("eu-west", 40, 0.25, false), new RegionProfile("provider", 60, 0.10, true));
        assertThat(RegionProfile.parseList("a@7")).containsExactly(new RegionProfile("a", 7, 0, false));
        assertThatThrownBy(() -> RegionProfile.parseList("a@7:1:cheap"))
                .hasMessageContaining("'a@7:1:cheap'");
        assertThatThrownBy(() -> RegionProfile.parseList("a@x")).hasMessageContaining("'a@x'");
        assertThatThrownBy(() -> RegionProfile.parseList("a@-1"))
                .hasMessageContaining("must not be negative");
    }

    @Test
    void shouldCountTheRegionsDelayInTheEstimateWhenPricesAreEqual() {
        RegionCatalog sameCost = new RegionCatalog(List.of(new RegionProfile("us-east", 300, 0, false),
                new RegionProfile("eu-west", 5, 0, false)), 2_000, 30_000);
        List<WorkerSnapshot> fleet = List.of(idle("a-us", "us-east"), idle("b-eu", "eu-west"));

        assertThat(place(RegionCatalog.empty(), request("r1", "BATCH"), fleet).workerId()).isEqualTo("a-us");
        assertThat(place(sameCost, request("r1", "BATCH"), fleet).workerId()).isEqualTo("b-eu");
    }
}
