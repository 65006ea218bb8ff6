package io.kvroute.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

// the bound's test fills the JVM-wide table: it runs last (by name)
@TestMethodOrder(MethodOrderer.MethodName.class)
class CanonicalNamesTest {

    @Test
    void shouldGiveSnapshotsAndRequestsOneInstancePerModelName() {
        String decodedOnce = new String("llama-3.1-70b".toCharArray());
        String decodedAgain = new String("llama-3.1-70b".toCharArray());
        WorkerSnapshot worker = WorkerSnapshot.builder("w-1", "us-east").models(Set.of(decodedOnce)).build();
        RouteRequest request = new RouteRequest("r-1", "t", decodedAgain, 10, null, 16, 8, null, null, RouteRequest.NO_DEADLINE);

        assertThat(request.model()).isSameAs(worker.models().iterator().next());
    }

    @Test
    void shouldGiveSnapshotsRequestsAndSettingsOneInstancePerRegionAndPoolName() {
        WorkerSnapshot worker = WorkerSnapshot.builder("w-1", new String("eu-north".toCharArray()))
                .pool(new String("h100-70b".toCharArray())).build();
        WorkerSnapshot other = WorkerSnapshot.builder("w-2", new String("eu-north".toCharArray()))
                .pool(new String("h100-70b".toCharArray())).build();
        RouteRequest request = new RouteRequest("r-1", "t", "m", 10, null, 16, 8, Set.of(new String("eu-north".toCharArray())), null,
                RouteRequest.NO_DEADLINE);
        RoutingSettings settings = RoutingSettings.defaults().withKnownRegions(Set.of(new String("eu-north".toCharArray())));

        assertThat(other.region()).isSameAs(worker.region());
        assertThat(other.pool()).isSameAs(worker.pool());
        assertThat(request.allowedRegions().iterator().next()).isSameAs(worker.region());
        assertThat(settings.knownRegions().iterator().next()).isSameAs(worker.region());
        assertThat(CanonicalNames.canonical(Set.of("a-model", "b-model"))).containsExactlyInAnyOrder("a-model", "b-model");
    }

    @Test
    void shouldOnlyLookUpTheNamesOfRequestsWhichComeFromUsers() {
        String userModel = new String("a-model-no-worker-serves".toCharArray());
        String userRegion = new String("a-region-no-worker-is-in".toCharArray());
        new RouteRequest("r-1", "t", userModel, 10, null, 16, 8, Set.of(userRegion), null, RouteRequest.NO_DEADLINE);

        String sameModel = new String("a-model-no-worker-serves".toCharArray());
        assertThat(CanonicalNames.known(sameModel)).as("the request's model was not kept").isSameAs(sameModel);
        assertThat(CanonicalNames.known(Set.of(new String("a-region-no-worker-is-in".toCharArray()))).iterator().next())
                .isNotSameAs(userRegion);
    }

    @Test
    void shouldKeepNamesEqualPastItsBound() {
        for (int i = 0; i < CanonicalNames.MAX_NAMES; i++) {
            CanonicalNames.canonical("model-" + i);
        }
        String late = new String("a-model-past-the-bound".toCharArray());

        assertThat(CanonicalNames.canonical(late)).isEqualTo("a-model-past-the-bound").isSameAs(late);
    }
}
