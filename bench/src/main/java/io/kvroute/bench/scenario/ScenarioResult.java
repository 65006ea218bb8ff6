package io.kvroute.bench.scenario;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A scenario's figures: {@code figures} (ordered, values are numbers, strings or nested maps) for
 * the JSON report, and {@code lines} for the printed table.
 */
public record ScenarioResult(String name, String description, Map<String, Object> figures, List<String> lines) {
    public ScenarioResult {
        figures = Collections.unmodifiableMap(new LinkedHashMap<>(figures));
        lines = List.copyOf(lines);
    }

    /** A top-level figure as a number (for tests and checks); fails if absent. */
    public double number(String key) {
        Object value = figures.get(key);
        if (!(value instanceof Number n)) {
            throw new IllegalArgumentException("scenario " + name + " has no numeric figure " + key);
        }
        return n.doubleValue();
    }
}
