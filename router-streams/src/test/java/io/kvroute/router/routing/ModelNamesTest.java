package io.kvroute.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

// the bound's test fills the JVM-wide table: it runs last (by name)
@TestMethodOrder(MethodOrderer.MethodName.class)
class ModelNamesTest {

    @Test
    void shouldGiveSnapshotsAndRequestsOneInstancePerModelName() {
        String decodedOnce = new String("llama-3.1-70b".toCharArray());
        String decodedAgain = new String("llama-3.1-70b".toCharArray());
        WorkerSnapshot worker = WorkerSnapshot.builder("w-1", "us-east").models(Set.of(decodedOnce)).build();
        RouteRequest request = new RouteRequest("r-1", "t", decodedAgain, 10, null, 16, 8, null, null, RouteRequest.NO_DEADLINE);

        assertThat(request.model()).isSameAs(worker.models().iterator().next());
        assertThat(ModelNames.canonical(Set.of("a-model", "b-model"))).containsExactlyInAnyOrder("a-model", "b-model");
    }

    @Test
    void shouldKeepNamesEqualPastItsBound() {
        for (int i = 0; i < ModelNames.MAX_NAMES; i++) {
            ModelNames.canonical("model-" + i);
        }
        String late = new String("a-model-past-the-bound".toCharArray());

        assertThat(ModelNames.canonical(late)).isEqualTo("a-model-past-the-bound").isSameAs(late);
    }
}
