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
 * {@code telemetry} says what the workers told the router ({@code observable} or {@code white-box}, which never
 * gets a verdict) and {@code routerEngine} the engine profile the router started from ({@code none}: it learnt).
 */
public record BenchReport(String trace, String format, int requests, String fleet, String engine, double loadScale,
                          long seed, long sloMs, int candidateSampleSize, Map<String, PolicyResult> policies, Bounds bounds,
                          String telemetry, String routerEngine) {
    public static final String OBSERVABLE = "observable";
    public static final String NO_ROUTER_ENGINE = "none";

    public BenchReport {
        policies = Collections.unmodifiableMap(new LinkedHashMap<>(policies));
    }

    /** A run in observable telemetry whose router started from no engine profile. */
    public BenchReport(String trace, String format, int requests, String fleet, String engine, double loadScale,
                       long seed, long sloMs, int candidateSampleSize, Map<String, PolicyResult> policies, Bounds bounds) {
        this(trace, format, requests, fleet, engine, loadScale, seed, sloMs, candidateSampleSize, policies, bounds, OBSERVABLE,
                NO_ROUTER_ENGINE);
    }

    /** Whether the run's results may be judged: only what production can see counts. */
    public boolean observable() {
        return OBSERVABLE.equals(telemetry);
    }

    /** The fleet's region names in the order the fleet spec lists them. */
    public List<String> fleetRegions() {
        return FleetSpec.parse(fleet).regions().stream().map(FleetSpec.Region::name).toList();
    }
}
