package io.kvroute.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class WorkerIdsTest {

    @Test
    void shouldRankIdsInTheOrderOfTheirNamesWhateverTheOrderTheyWereAssigned() {
        SplittableRandom random = new SplittableRandom(11);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            // short names over a small alphabet: many share prefixes, some are prefixes of others
            StringBuilder name = new StringBuilder("rank-");
            int length = 1 + random.nextInt(4);
            for (int c = 0; c < length; c++) {
                name.append("aB9-".charAt(random.nextInt(4)));
            }
            names.add(name.toString());
        }
        List<Integer> ids = new ArrayList<>();
        for (String name : names) {
            ids.add(WorkerIds.of(name));
        }

        int[] ranks = WorkerIds.ranks();
        for (int i = 0; i < names.size(); i++) {
            for (int j = 0; j < names.size(); j++) {
                int byName = Integer.signum(names.get(i).compareTo(names.get(j)));
                int byRank = Integer.signum(Integer.compare(ranks[ids.get(i)], ranks[ids.get(j)]));
                assertThat(byRank).as("%s vs %s", names.get(i), names.get(j)).isEqualTo(byName);
            }
        }
    }

    @Test
    void shouldKeepOneIdPerName() {
        int id = WorkerIds.of("same-worker");
        assertThat(WorkerIds.of("same-worker")).isEqualTo(id);
        assertThat(WorkerIds.find("same-worker")).isEqualTo(id);
        assertThat(WorkerIds.name(id)).isEqualTo("same-worker");
        assertThat(WorkerIds.find("never-seen-worker")).isEqualTo(-1);
    }

    @Test
    void shouldGiveEverySnapshotOfAWorkerTheSameIdStringWhileTheNamesGrow() {
        // new String instances, as each decoded telemetry record brings; enough new ids to grow the names array
        List<String> first = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            String name = new String("canonical-" + i);
            first.add(WorkerIds.canonical(name));
            assertThat(first.get(i)).isEqualTo(name);
        }
        for (int i = 0; i < 500; i++) {
            WorkerSnapshot later = Fleet.worker(new String("canonical-" + i)).build();
            assertThat(later.workerId()).as("the instance kept for canonical-%d", i).isSameAs(first.get(i));
        }
    }
}
