package io.kvroute.bench.trace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a Mooncake trace (JSONL: {@code timestamp} ms, {@code input_length}, {@code output_length},
 * {@code hash_ids} of 512-token blocks). A malformed line fails with its line number.
 */
public final class MooncakeTrace {
    public static final int BLOCK_TOKENS = 512;
    private static final ObjectMapper JSON = new ObjectMapper();

    private MooncakeTrace() {
    }

    public static List<TraceRequest> read(Path path, int limit) {
        List<TraceRequest> requests = new ArrayList<>();
        try (BufferedReader reader = Files.newBufferedReader(path)) {
            String line;
            int lineNumber = 0;
            while ((line = reader.readLine()) != null && requests.size() < limit) {
                lineNumber++;
                if (line.isBlank()) {
                    continue;
                }
                requests.add(parse(line, path, lineNumber));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read trace " + path + ": " + e.getMessage(), e);
        }
        return requests;
    }

    private static TraceRequest parse(String line, Path path, int lineNumber) {
        try {
            JsonNode node = JSON.readTree(line);
            JsonNode hashes = node.path("hash_ids");
            long[] ids = new long[hashes.size()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = hashes.get(i).asLong();
            }
            int input = requirePositive(node, "input_length");
            int output = requirePositive(node, "output_length");
            if (!node.has("timestamp")) {
                throw new IllegalArgumentException("missing timestamp");
            }
            return new TraceRequest(node.get("timestamp").asLong(), input, output, ids, BLOCK_TOKENS);
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException(path + " line " + lineNumber + " is not a Mooncake trace record: " + e.getMessage(), e);
        }
    }

    private static int requirePositive(JsonNode node, String field) {
        int value = node.path(field).asInt(-1);
        if (value <= 0) {
            throw new IllegalArgumentException(field + " must be a positive integer, was " + node.get(field));
        }
        return value;
    }
}
