package io.kvroute.bench.scenario;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The scenarios known by name. */
public final class Scenarios {
    private static final Map<String, Scenario> BY_NAME = new LinkedHashMap<>();

    static {
        for (Scenario s : List.of(new RegionOutageScenario(), new NoisyNeighbourScenario(), new Provider429Scenario())) {
            BY_NAME.put(s.name(), s);
        }
    }

    private Scenarios() {
    }

    public static List<String> names() {
        return List.copyOf(BY_NAME.keySet());
    }

    public static Scenario named(String name) {
        Scenario s = BY_NAME.get(name);
        if (s == null) {
            throw new IllegalArgumentException("unknown scenario '" + name + "', known: " + names());
        }
        return s;
    }
}
