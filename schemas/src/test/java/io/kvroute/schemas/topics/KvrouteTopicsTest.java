package io.kvroute.schemas.topics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class KvrouteTopicsTest {

    @Test
    void shouldKeepEveryCancelAndRePlacementMarkerForADayBeforeCompactionMayDropOne() {
        // both are keyed by request id: compaction keeps only the last of them
        Map<String, String> configs = KvrouteTopics.defaults().cancellations().configs();

        assertThat(configs.get("cleanup.policy")).contains("compact");
        assertThat(Long.parseLong(configs.get("min.compaction.lag.ms"))).isGreaterThanOrEqualTo(86_400_000L);
    }
}
