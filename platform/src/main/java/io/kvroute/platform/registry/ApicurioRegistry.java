package io.kvroute.platform.registry;

import io.kvroute.platform.process.ChildJvm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real schema registry speaking the Confluent API: Apicurio Registry 2.6 (in-memory storage)
 * as a child JVM on loopback. Maven unpacks it into {@code platform/target/apicurio} at build;
 * {@value #DIR_PROPERTY} points elsewhere.
 */
public final class ApicurioRegistry implements AutoCloseable {
    public static final String DIR_PROPERTY = "kvroute.apicurio.dir";
    public static final String CCOMPAT_PATH = "/apis/ccompat/v7";

    private final ChildJvm process;
    private final int port;
    private final HttpClient probe = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private ApicurioRegistry(ChildJvm process, int port) {
        this.process = process;
        this.port = port;
    }

    public static Path locateRunnerJar() {
        String dir = System.getProperty(DIR_PROPERTY);
        List<Path> candidates = dir != null ? List.of(Path.of(dir))
                : List.of(Path.of("platform/target/apicurio"), Path.of("../platform/target/apicurio"));
        for (Path candidate : candidates) {
            Path jar = candidate.resolve("apicurio-registry-app-2.6.13.Final-runner.jar");
            if (Files.isRegularFile(jar)) {
                return jar.toAbsolutePath();
            }
        }
        throw new IllegalStateException("Apicurio Registry not found in " + candidates
                + ": build the project first (mvn -DskipTests install unpacks it) or set -D" + DIR_PROPERTY);
    }

    /** A registry holding its schemas in memory, on a free port. */
    public static ApicurioRegistry start(Path dir) {
        return start(dir, 0, false);
    }

    /**
     * A registry on {@code port} (0: any free port); with {@code persistent}, its schemas are kept in
     * an H2 database file under {@code dir} (the registry's own storage, pointed at a file instead of
     * memory), so that records written before a restart still decode after it.
     */
    public static ApicurioRegistry start(Path dir, int port, boolean persistent) {
        Path jar = locateRunnerJar();
        Path workDir = dir.toAbsolutePath();
        if (port <= 0) {
            port = ChildJvm.freePort();
        }
        int managementPort = ChildJvm.freePort();
        try {
            Files.createDirectories(workDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> jvmArgs = new ArrayList<>(List.of(
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dquarkus.http.host=127.0.0.1",
                "-Dquarkus.http.port=" + port,
                "-Dquarkus.management.host=127.0.0.1",
                "-Dquarkus.management.port=" + managementPort,
                "-Dquarkus.log.level=WARN"));
        if (persistent) {
            // the variable the registry's production datasource URL is read from (in memory by default)
            jvmArgs.add("-DREGISTRY_DATASOURCE_URL=jdbc:h2:file:" + workDir.resolve("registry_db"));
        }
        ChildJvm jvm = ChildJvm.start("schema-registry", jvmArgs,
                null, jar.toString(), List.of(), workDir, workDir.resolve("schema-registry.log"));
        ApicurioRegistry registry = new ApicurioRegistry(jvm, port);
        jvm.awaitReady(registry::answers, Duration.ofSeconds(90));
        return registry;
    }

    private boolean answers() {
        try {
            HttpResponse<Void> response = probe.send(
                    HttpRequest.newBuilder(URI.create(url() + "/subjects")).timeout(Duration.ofSeconds(2)).GET().build(),
                    HttpResponse.BodyHandlers.discarding());
            return response.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The Confluent-compatible base URL, for {@code schema.registry.url}. */
    public String url() {
        return "http://127.0.0.1:" + port + CCOMPAT_PATH;
    }

    public long pid() {
        return process.pid();
    }

    @Override
    public void close() {
        process.close();
    }
}
