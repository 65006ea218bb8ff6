package io.kvroute.router.topology.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ParkedIndexTest {
    private final ParkedIndex index = new ParkedIndex();

    private static List<String> keys(List<ParkedIndex.Entry> entries) {
        return entries.stream().map(ParkedIndex.Entry::key).toList();
    }

    @Test
    void shouldFindThoseParkedLongEnoughOldestFirstAndStopAtTheFirstParkedLater() {
        index.add("k1", "r1", "t", 1_000, null);
        index.add("k2", "r2", "t", 2_000, null);
        index.add("k3", "r3", "t", 3_000, null);

        assertThat(keys(index.parkedAtOrBefore(2_000))).containsExactly("k1", "k2");
        assertThat(keys(index.parkedAtOrBefore(999))).isEmpty();
        index.remove("k1");
        assertThat(keys(index.parkedAtOrBefore(5_000))).containsExactly("k2", "k3");
        assertThat(index.size()).isEqualTo(2);
    }

    @Test
    void shouldFindPassedDeadlinesSoonestFirstAndLeaveOutRequestsWithout() {
        index.add("k1", "r1", "t", 1_000, 9_000L);
        index.add("k2", "r2", "t", 1_000, null);
        index.add("k3", "r3", "t", 1_000, 5_000L);
        index.add("k4", "r4", "t", 1_000, 5_000L);

        assertThat(keys(index.deadlineAtOrBefore(5_000))).containsExactly("k3", "k4");
        assertThat(keys(index.deadlineAtOrBefore(Long.MAX_VALUE - 1))).containsExactly("k3", "k4", "k1");
        index.remove("k3");
        assertThat(keys(index.deadlineAtOrBefore(9_000))).containsExactly("k4", "k1");
    }

    @Test
    void shouldKeepEveryParkingOfARequestIdForItsCancel() {
        index.add("k1", "r1", "tenant-a", 1_000, null);
        index.add("k2", "r1", "tenant-a", 2_000, null);
        index.add("k3", "r2", null, 2_000, null);

        assertThat(keys(index.ofRequest("r1"))).containsExactly("k1", "k2");
        assertThat(index.ofRequest("r1").get(0).tenant()).isEqualTo("tenant-a");
        assertThat(index.ofRequest("r9")).isEmpty();
        assertThat(index.requestIds()).containsExactlyInAnyOrder("r1", "r2");

        index.remove("k1");
        index.remove("k2");
        index.remove("k2");
        assertThat(index.ofRequest("r1")).isEmpty();
        assertThat(index.requestIds()).containsExactly("r2");
        assertThat(index.get("k1")).isNull();
        assertThat(index.get("k3").parkedAtMs()).isEqualTo(2_000);
    }

    @Test
    void shouldRefuseAKeyIndexedTwiceAndForgetEverythingOnClear() {
        index.add("k1", "r1", "t", 1_000, 4_000L);
        assertThatThrownBy(() -> index.add("k1", "r1", "t", 1_000, null)).hasMessageContaining("k1");

        index.clear();
        assertThat(index.size()).isZero();
        assertThat(index.deadlineAtOrBefore(Long.MAX_VALUE - 1)).isEmpty();
        assertThat(index.requestIds()).isEmpty();
    }
}
