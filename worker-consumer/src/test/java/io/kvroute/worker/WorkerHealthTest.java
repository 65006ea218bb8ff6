package io.kvroute.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.platform.health.HealthStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkerHealthTest {

    @Test
    void shouldBeReadyWithAPartitionAndAReachableEngine() {
        assertThat(WorkerHealth.ready(true, List.of(0, 3), null)).isEqualTo(HealthStatus.up("dispatch partitions [0, 3]"));
    }

    @Test
    void shouldNotBeReadyWithoutAPartitionOrWithItsServerUnreachableOrItsLoopStopped() {
        assertThat(WorkerHealth.ready(true, List.of(), null).up()).isFalse();
        assertThat(WorkerHealth.ready(true, List.of(0), "cannot read the server's metrics: connection refused"))
                .isEqualTo(HealthStatus.down("engine unreachable: cannot read the server's metrics: connection refused"));
        assertThat(WorkerHealth.ready(false, List.of(0), null)).isEqualTo(HealthStatus.down("dispatch loop stopped"));
    }

    @Test
    void shouldStayLiveWhileItsLoopRunsWhateverItsServerDoes() {
        assertThat(WorkerHealth.of(() -> true, List::of, () -> "down").live().get().up()).isTrue();
        assertThat(WorkerHealth.of(() -> false, List::of, () -> null).live().get().up()).isFalse();
    }
}
