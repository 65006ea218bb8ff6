package io.kvroute.bench.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
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
    void shouldParseTheDefaultFleet() {
        assertThat(FleetSpec.defaults().totalGpus()).isEqualTo(8);
    }
}
