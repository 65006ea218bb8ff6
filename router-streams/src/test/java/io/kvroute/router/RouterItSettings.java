package io.kvroute.router;

import io.kvroute.platform.testing.TestKafka;
import io.kvroute.platform.testing.TestRegistry;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/** A router's settings for the integration tests: the real broker and registry, one region, a fresh application id. */
final class RouterItSettings {
    private RouterItSettings() {
    }

    static Map<String, String> of(String prefix, Path stateDir) {
        Map<String, String> s = new HashMap<>();
        s.put("bootstrap.servers", TestKafka.bootstrapServers());
        s.put("schema.registry.url", TestRegistry.url());
        s.put("kvroute.topic.prefix", prefix);
        s.put("router.application.id", "router-it-" + UUID.randomUUID());
        s.put("router.regions", "us-east");
        s.put("router.state.dir", stateDir.toString());
        s.put("router.metrics.port", "0");
        // the tests' telemetry is produced once; keep it fresh for the whole test
        s.put("router.telemetry.ttl.ms", "120000");
        s.put("router.replace.patience.ms", "240000");
        return s;
    }
}
