package io.kvroute.ingress.batch;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The manifest {@code submit} writes and {@code collect --ids} reads: one JSON line per request
 * sent, {@code {"request_id", "custom_id", "url", "model"}}. {@link #read} also accepts a plain
 * list of request ids, one per line, for results submitted by other means.
 */
public final class BatchManifest {
    private final ObjectMapper json;

    public BatchManifest(ObjectMapper json) {
        this.json = json;
    }

    public BatchManifest() {
        this(new ObjectMapper());
    }

    public String line(ManifestEntry entry) {
        ObjectNode node = json.createObjectNode();
        node.put("request_id", entry.requestId());
        node.put("custom_id", entry.customId());
        node.put("url", entry.endpoint().url());
        node.put("model", entry.model());
        try {
            return json.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The entries by request id, in file order. */
    public Map<String, ManifestEntry> read(Path path) {
        Map<String, ManifestEntry> entries = new LinkedHashMap<>();
        int number = 0;
        try (BufferedReader reader = Files.newBufferedReader(path)) {
            for (String text = reader.readLine(); text != null; text = reader.readLine()) {
                number++;
                String trimmed = text.trim();
                if (trimmed.isEmpty()) {
                    continue;
                }
                ManifestEntry entry = trimmed.startsWith("{") ? parse(trimmed, number, path)
                        : new ManifestEntry(trimmed, null, BatchEndpoint.CHAT_COMPLETIONS, null);
                entries.put(entry.requestId(), entry);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read ids file " + path, e);
        }
        return entries;
    }

    private ManifestEntry parse(String text, int number, Path path) {
        try {
            JsonNode node = json.readTree(text);
            String requestId = node.path("request_id").asText(null);
            if (requestId == null || requestId.isEmpty()) {
                throw new IllegalArgumentException(path + " line " + number + ": request_id is missing");
            }
            BatchEndpoint endpoint = BatchEndpoint.forUrl(node.path("url").asText("")).orElse(BatchEndpoint.CHAT_COMPLETIONS);
            return new ManifestEntry(requestId, node.path("custom_id").asText(null), endpoint, node.path("model").asText(null));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(path + " line " + number + ": not valid JSON", e);
        }
    }
}
