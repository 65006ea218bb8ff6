package io.kvroute.router.routing;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The routing policies known by name: kvroute's own ({@value KvAwarePolicy#NAME}, the default)
 * and the eight baselines of BASELINES.md, in that order.
 */
public final class Policies {
    public static final String DEFAULT = KvAwarePolicy.NAME;

    private static final Map<String, Function<RouterState, RoutingPolicy>> FACTORIES = new LinkedHashMap<>();

    static {
        FACTORIES.put(KvAwarePolicy.NAME, KvAwarePolicy::new);
        FACTORIES.put(RoundRobinPolicy.NAME, RoundRobinPolicy::new);
        FACTORIES.put(LeastQueuePolicy.NAME, LeastQueuePolicy::new);
        FACTORIES.put(SeedLowestKvPolicy.NAME, SeedLowestKvPolicy::new);
        FACTORIES.put(PowerOfTwoPolicy.NAME, PowerOfTwoPolicy::new);
        FACTORIES.put(SglangCacheAwarePolicy.NAME, SglangCacheAwarePolicy::new);
        FACTORIES.put(GieWeightedPolicy.NAME, GieWeightedPolicy::new);
        FACTORIES.put(DynamoKvPolicy.NAME, DynamoKvPolicy::new);
        FACTORIES.put(LMetricPolicy.NAME, LMetricPolicy::new);
    }

    private Policies() {
    }

    public static List<String> names() {
        return List.copyOf(FACTORIES.keySet());
    }

    /** The baselines only (every name but {@link #DEFAULT}). */
    public static List<String> baselineNames() {
        return FACTORIES.keySet().stream().filter(n -> !n.equals(DEFAULT)).toList();
    }

    public static boolean exists(String name) {
        return FACTORIES.containsKey(name);
    }

    /** A new policy instance over {@code state}; throws {@link IllegalArgumentException} for an unknown name. */
    public static RoutingPolicy create(String name, RouterState state) {
        Function<RouterState, RoutingPolicy> factory = FACTORIES.get(name);
        if (factory == null) {
            throw new IllegalArgumentException("unknown routing policy '" + name + "', known: " + names());
        }
        return factory.apply(state);
    }
}
