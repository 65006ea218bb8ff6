package io.kvroute.bench.scenario;

/** A named, self-contained simulation with its own workload, fleet and conditions. Deterministic for a seed. */
public interface Scenario {
    String name();

    String description();

    ScenarioResult run(long seed);
}
