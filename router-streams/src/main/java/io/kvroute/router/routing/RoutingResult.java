package io.kvroute.router.routing;

import java.util.Optional;

/** What {@link Router#route} decided: a placement or none, the candidates it chose among, and why. */
public record RoutingResult(Optional<Placement> placement, CandidateSet candidates, String reason) {

    public boolean placed() {
        return placement.isPresent();
    }
}
