package io.kvroute.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FleetSpecTest {

    @Test
    void shouldParseRegionsWithGpusAndDelays() {
        FleetSpec fleet = FleetSpec.parse("us-east=4@5, eu-west=2@40");

        assertThat(fleet.regions()).containsExactly(new FleetSpec.Region("us-east", 4, 5), new FleetSpec.Region("eu-west", 2, 40));
        assertThat(fleet.totalGpus()).isEqualTo(6);
        assertThat(fleet.smallestDelayMs()).isEqualTo(5);
        assertThat(fleet.largestDelayMs()).isEqualTo(40);
        assertThat(fleet).hasToString("us-east=4@5,eu-west=2@40");
    }

    @Test
    void shouldRejectMalformedSpecsNamingThePart() {
        for (String bad : List.of("us-east=4", "us-east@5", "=4@5", "us-east=x@5", "us-east=0@5", "a=1@5,a=2@6", "")) {
            assertThatThrownBy(() -> FleetSpec.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> FleetSpec.parse("us-east=4@-3")).hasMessageContaining("us-east");
    }

    @Test
    void shouldParsePoolsOfSeveralEnginesInOneRegion() {
        FleetSpec fleet = FleetSpec.parse("us-east=4@5:llama-8b-h100, us-east=2@5:LLAMA-8B-A100,eu-west=2@40:llama-70b-4xh100");

        assertThat(fleet.pools()).containsExactly(new FleetSpec.Pool("us-east", 4, 5, "llama-8b-h100"),
                new FleetSpec.Pool("us-east", 2, 5, "llama-8b-a100"), new FleetSpec.Pool("eu-west", 2, 40, "llama-70b-4xh100"));
        assertThat(fleet.regions()).containsExactly(new FleetSpec.Region("us-east", 6, 5), new FleetSpec.Region("eu-west", 2, 40));
        assertThat(fleet.gpusByRegion()).containsExactly(Map.entry("us-east", 6), Map.entry("eu-west", 2));
        assertThat(fleet.totalGpus()).isEqualTo(8);
        assertThat(fleet).hasToString("us-east=4@5:llama-8b-h100,us-east=2@5:llama-8b-a100,eu-west=2@40:llama-70b-4xh100");
        assertThat(FleetSpec.parse(fleet.toString())).isEqualTo(fleet);
    }

    @Test
    void shouldRunTheRunsEngineInPoolsThatNameNone() {
        SimConfig config = SimConfig.defaults().withEngine(EngineProfile.LLAMA_70B_4XH100)
                .withFleet(FleetSpec.parse("us-east=4@5,us-east=2@5:llama-8b-a100"));

        assertThat(config.fleet().pools().get(0).engine()).isNull();
        assertThat(config.engineOf(config.fleet().pools().get(0))).isSameAs(EngineProfile.LLAMA_70B_4XH100);
        assertThat(config.engineOf(config.fleet().pools().get(1))).isEqualTo(EngineProfile.LLAMA_8B_A100);
    }

    @Test
    void shouldGiveEveryPoolTheRunsKvPoolHostTierAndKvEvents() {
        EngineProfile run = EngineProfile.LLAMA_8B_H100.withKvBlocks(12_000).withHostKvBlocks(0).withoutKvEvents();
        SimConfig config = SimConfig.defaults().withEngine(run).withFleet(FleetSpec.parse("a=1@5:llama-8b-a100"));

        EngineProfile pool = config.engineOf(config.fleet().pools().get(0));

        assertThat(pool.baseName()).isEqualTo("llama-8b-a100");
        assertThat(pool.costModel()).isEqualTo(EngineProfile.LLAMA_8B_A100.costModel());
        assertThat(pool.limits().kvBlocks()).isEqualTo(12_000);
        assertThat(pool.limits().hostKvBlocks()).isZero();
        assertThat(pool.limits().maxBatchedTokens()).isEqualTo(EngineProfile.LLAMA_8B_A100.limits().maxBatchedTokens());
        assertThat(pool.publishesKvEvents()).isFalse();
    }

    @Test
    void shouldRejectABadPoolNamingThePartAndTheKnownEngines() {
        assertThatThrownBy(() -> FleetSpec.parse("us-east=4@5,us-east=2@5:h200"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'us-east=2@5:h200'")
                .hasMessageContaining("unknown engine profile 'h200'")
                .hasMessageContaining("llama-8b-h100").hasMessageContaining("llama-8b-a100").hasMessageContaining("llama-70b-4xh100");
        assertThatThrownBy(() -> FleetSpec.parse("us-east=2@5:")).hasMessageContaining("'us-east=2@5:'");
        assertThatThrownBy(() -> FleetSpec.parse("us-east=2:llama-8b-a100")).hasMessageContaining("'us-east=2:llama-8b-a100'");
        assertThatThrownBy(() -> FleetSpec.parse("us-east=2@x:llama-8b-a100")).hasMessageContaining("non-numeric");
        assertThatThrownBy(() -> FleetSpec.parse("us-east=4@5:llama-8b-h100,us-east=2@9:llama-8b-a100"))
                .hasMessageContaining("region us-east has pools at 5 and 9 ms");
    }

    @Test
    void shouldParseTheDefaultFleet() {
        assertThat(FleetSpec.defaults().totalGpus()).isEqualTo(8);
    }
}
