package io.kvroute.router.routing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The routing policies known by name: kvroute's own ({@value KvAwarePolicy#NAME}, the default)
 * and the eight baselines of BASELINES.md, in that order ({@link #names()}, what {@code --policies all}
 * runs); plus variants of a baseline under another configuration of its anchor, selectable by name
 * but not part of {@link #names()} ({@link #variantNames()}: {@value SglangCacheAwarePolicy#LIBRARY_NAME}).
 */
public final class Policies {
    public static final String DEFAULT = KvAwarePolicy.NAME;

    private static final Map<String, Function<RouterState, RoutingPolicy>> FACTORIES = new LinkedHashMap<>();
    private static final Map<String, Function<RouterState, RoutingPolicy>> VARIANTS = new LinkedHashMap<>();

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
        VARIANTS.put(SglangCacheAwarePolicy.LIBRARY_NAME, SglangCacheAwarePolicy::library);
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

    /** Baselines under another configuration of their anchor, selectable by name, not run by {@code all}. */
    public static List<String> variantNames() {
        return List.copyOf(VARIANTS.keySet());
    }

    /** {@link #names()} then {@link #variantNames()}: every name {@link #create} accepts. */
    public static List<String> allNames() {
        List<String> all = new ArrayList<>(FACTORIES.keySet());
        all.addAll(VARIANTS.keySet());
        return List.copyOf(all);
    }

    public static boolean exists(String name) {
        return FACTORIES.containsKey(name) || VARIANTS.containsKey(name);
    }

    /** A new policy instance over {@code state}; throws {@link IllegalArgumentException} for an unknown name. */
    public static RoutingPolicy create(String name, RouterState state) {
        Function<RouterState, RoutingPolicy> factory = FACTORIES.containsKey(name) ? FACTORIES.get(name) : VARIANTS.get(name);
        if (factory == null) {
            throw new IllegalArgumentException("unknown routing policy '" + name + "', known: " + allNames());
        }
        return factory.apply(state);
    }
}
