package io.kvroute.local.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine.Option;

/**
 * How a command reaches the cluster as an administrator: the bootstrap servers, and Kafka client properties from a
 * file for a secured cluster ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}), so that no secret is on a
 * command line. A picocli mixin, shared by {@code topics}, {@code transactions} and {@code acls}.
 */
public final class AdminConnection {
    @Option(names = "--bootstrap-servers", defaultValue = "127.0.0.1:9092", description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE}).")
    String bootstrapServers;

    @Option(names = "--command-config", paramLabel = "FILE",
            description = "Kafka client properties for the admin connection (security.protocol, sasl.mechanism, sasl.jaas.config, ssl.*).")
    Path commandConfig;

    /** The admin client's settings; a missing or unreadable file fails naming the option and the path. */
    public Map<String, Object> settings() {
        Map<String, Object> settings = new HashMap<>();
        if (commandConfig != null) {
            Properties p = new Properties();
            try (Reader in = Files.newBufferedReader(commandConfig)) {
                p.load(in);
            } catch (IOException e) {
                throw new IllegalArgumentException("--command-config " + commandConfig + " cannot be read: " + e.getMessage(), e);
            }
            p.stringPropertyNames().forEach(key -> settings.put(key, p.getProperty(key)));
        }
        settings.put("bootstrap.servers", bootstrapServers);
        return settings;
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }
}
