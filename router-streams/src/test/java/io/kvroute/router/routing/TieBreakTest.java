package io.kvroute.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TieBreakTest {
    private static final List<String> WORKERS = List.of("us-east-0", "us-east-1", "us-east-2", "us-east-3", "us-east-4", "us-east-5");

    @Test
    void shouldOrderByIdWithoutAnInstance() {
        assertThat(sorted(TieBreak.BY_ID)).containsExactlyElementsOf(WORKERS);
        assertThat(TieBreak.forInstance("")).isSameAs(TieBreak.BY_ID);
        assertThat(TieBreak.BY_ID.before("a", "b")).isTrue();
    }

    @Test
    void shouldGiveEachInstanceItsOwnStableOrder() {
        List<String> first = sorted(TieBreak.forInstance("instance-a"));

        assertThat(sorted(TieBreak.forInstance("instance-a"))).isEqualTo(first);
        assertThat(first).containsExactlyInAnyOrderElementsOf(WORKERS);
    }

    /** Instances deciding on the same idle fleet spread their first picks over it instead of all taking one worker. */
    @Test
    void shouldSpreadTheFirstPicksOfManyInstancesOverTheWorkers() {
        Map<String, Integer> firstPicks = new HashMap<>();
        for (int i = 0; i < 60; i++) {
            firstPicks.merge(sorted(TieBreak.forInstance("instance-" + i)).get(0), 1, Integer::sum);
        }

        assertThat(firstPicks).as("first picks of 60 instances").containsOnlyKeys(WORKERS);
        assertThat(firstPicks.values()).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(20));
    }

    private static List<String> sorted(TieBreak tieBreak) {
        List<String> ids = new ArrayList<>(WORKERS);
        ids.sort(tieBreak.workerIds());
        return ids;
    }
}
