package io.kvroute.router.routing;

import java.util.Set;

/** Builders for the routing tests. */
final class Fleet {
    static final String MODEL = "llama-3.1-8b";
    static final long NOW = 1_000_000L;

    private Fleet() {
    }

    static WorkerSnapshot.Builder worker(String id) {
        return WorkerSnapshot.builder(id, "us-east").observedAtMs(NOW - 100);
    }

    static RouteRequest request(String id, int promptTokens, long... hashes) {
        return new RouteRequest(id, "tenant-a", MODEL, promptTokens, hashes, 64, 128, Set.of(), "BATCH", RouteRequest.NO_DEADLINE);
    }

    static long[] blocks(int count, long seed) {
        long[] hashes = new long[count];
        for (int i = 0; i < count; i++) {
            hashes[i] = seed * 1_000_003L + i;
        }
        return hashes;
    }

    static RoutingSettings settings() {
        return RoutingSettings.defaults().withKnownRegions(Set.of("us-east", "eu-west"));
    }
}
