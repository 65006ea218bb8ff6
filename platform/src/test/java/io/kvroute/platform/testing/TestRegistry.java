package io.kvroute.platform.testing;

import io.kvroute.platform.registry.ApicurioRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;

/** The real schema registry (Apicurio, Confluent API) shared by the integration tests of a JVM. */
public final class TestRegistry {
    private static ApicurioRegistry registry;

    private TestRegistry() {
    }

    public static synchronized String url() {
        if (registry == null) {
            try {
                registry = ApicurioRegistry.start(Files.createTempDirectory("kvroute-registry"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(registry::close, "test-registry-stop"));
        }
        return registry.url();
    }
}
