package io.kvroute.bench.report;

import io.kvroute.bench.sim.Bounds;
import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.bench.sim.PolicyResult;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One bench run: what was simulated, each policy's result (in run order) and the trace's bounds.
 * {@code candidateSampleSize} is the router's sample size, which matters only for a fleet larger than it.
 */
public record BenchReport(String trace, String format, int requests, String fleet, String engine, double loadScale,
                          long seed, long sloMs, int candidateSampleSize, Map<String, PolicyResult> policies, Bounds bounds) {
    public BenchReport {
        policies = Collections.unmodifiableMap(new LinkedHashMap<>(policies));
    }

    /** The fleet's region names in the order the fleet spec lists them. */
    public List<String> fleetRegions() {
        return FleetSpec.parse(fleet).regions().stream().map(FleetSpec.Region::name).toList();
    }
}
