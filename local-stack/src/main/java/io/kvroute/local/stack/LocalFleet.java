package io.kvroute.local.stack;

import io.kvroute.bench.sim.FleetSpec;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The local stack's regions, in the simulator's fleet notation ({@link FleetSpec}); here the
 * network delay may be left out ({@code us-east=4} means no delay), since creating topics needs
 * only the GPU slots.
 */
public final class LocalFleet {
    /** Three regions of different size and distance. */
    public static final String DEFAULT = "us-east=4@5,eu-west=2@40,ap-south=2@90";

    private LocalFleet() {
    }

    /** Parses {@code name=slots[@delayMs],...}. */
    public static FleetSpec parse(String spec) {
        if (spec == null || spec.isBlank()) {
            return FleetSpec.parse(spec);
        }
        FleetSpec fleet = FleetSpec.parse(Arrays.stream(spec.split(","))
                .map(String::trim)
                .filter(part -> !part.isEmpty())
                .map(part -> part.contains("@") ? part : part + "@0")
                .collect(Collectors.joining(",")));
        for (FleetSpec.Pool pool : fleet.pools()) {
            if (pool.engine() != null) {
                throw new IllegalArgumentException("fleet part '" + pool + "': the local stack's workers run one engine; "
                        + "a pool's :engine is for the bench's simulator");
            }
        }
        return fleet;
    }
}
