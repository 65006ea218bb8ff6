package io.kvroute.local.up;

import io.kvroute.local.stack.KvrouteServices;
import io.kvroute.local.stack.LocalStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** The files {@code kvroute up} leaves in its work directory for the user's commands. */
final class UpFiles {
    private static final String[] QUESTIONS = {
        "What is a KV cache?", "Why does prefill cost more than a decode step?", "What does a compacted topic keep?",
        "Name three ways to batch inference requests.", "What is time to first token?", "Why route by prefix?"};

    private UpFiles() {
    }

    /** The settings the ingress commands read with {@code --config}. */
    static void writeClientConfig(Path file, LocalStack stack) throws IOException {
        Files.writeString(file, "# written by kvroute up: the local stack's addresses, for --config\n"
                + "bootstrap.servers=" + stack.bootstrapServers() + "\n"
                + "schema.registry.url=" + stack.registryUrl() + "\n"
                + "kvroute.topic.prefix=" + stack.topics().prefix() + "\n");
    }

    /** A small OpenAI Batch input for the served model: two applications, each with its own system prompt shared by its requests. */
    static void writeExampleBatch(Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < QUESTIONS.length; i++) {
            String system = i % 2 == 0 ? "You are a concise tutor on LLM serving. Answer in two sentences."
                    : "You are a Kafka expert. Answer precisely and briefly.";
            lines.add("{\"custom_id\": \"example-" + (i + 1) + "\", \"method\": \"POST\", \"url\": \"/v1/chat/completions\", "
                    + "\"body\": {\"model\": \"" + KvrouteServices.MODEL + "\", \"max_tokens\": 64, \"messages\": ["
                    + "{\"role\": \"system\", \"content\": \"" + system + "\"}, "
                    + "{\"role\": \"user\", \"content\": \"" + QUESTIONS[i] + "\"}]}}");
        }
        Files.write(file, lines);
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
