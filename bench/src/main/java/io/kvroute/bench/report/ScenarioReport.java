package io.kvroute.bench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvroute.bench.scenario.ScenarioResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Scenario results as JSON: {@code seed}, then {@code scenarios} (name → {@code description} and
 * the scenario's figures, e.g. {@code residency_violations}, {@code lost}, {@code jain_fair}).
 */
public final class ScenarioReport {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ScenarioReport() {
    }

    public static ObjectNode toJson(List<ScenarioResult> results, long seed) {
        ObjectNode root = JSON.createObjectNode();
        root.put("seed", seed);
        ObjectNode scenarios = root.putObject("scenarios");
        for (ScenarioResult r : results) {
            ObjectNode node = scenarios.putObject(r.name());
            node.put("description", r.description());
            node.setAll((ObjectNode) JSON.valueToTree(r.figures()));
        }
        return root;
    }

    public static void write(List<ScenarioResult> results, long seed, Path path) {
        try {
            Path parent = path.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            JSON.writeValue(path.toFile(), toJson(results, seed));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path + ": " + e.getMessage(), e);
        }
    }
}
