package io.kvroute.router.routing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Baseline: SGLang model gateway's {@code cache_aware} policy
 * ({@code sgl-model-gateway/src/policies/cache_aware.rs}).
 *
 * <ol>
 *   <li>load = in-flight requests: running + waiting in telemetry plus the router's pending ones
 *       (SGLang counts the requests it routed and has not seen finish);</li>
 *   <li>if max − min load &gt; balance_abs and max &gt; balance_rel × min, the fleet is imbalanced:
 *       the least loaded worker wins, whatever the prefix (the global gate, a known failure mode);</li>
 *   <li>otherwise the candidate with the longest prefix match in the router-side approximate
 *       tree (what the router itself routed there, LRU-trimmed: {@link ApproximatePrefixIndex})
 *       wins if matched / prompt blocks &gt; cache_threshold (longest match, then lower load, then
 *       the instance's tie-break order);</li>
 *   <li>else (a miss) the least loaded worker wins: the current gateway behaviour. Older SGLang
 *       routers sent a miss to the worker with the smallest tree; that variant is not modelled.</li>
 * </ol>
 * The request's blocks are recorded on the chosen worker in both modes (by the router), as
 * SGLang inserts the text into the tree in both modes. Match rate is in blocks, not characters.
 *
 * <p>Two configurations: {@value #NAME} is the gateway as launched, with its command-line defaults
 * ({@link Config#GATEWAY}: {@code sgl-model-gateway/src/main.rs}); {@value #LIBRARY_NAME} is the
 * policy built from the library's {@code CacheAwareConfig::default} ({@link Config#LIBRARY}:
 * {@code sgl-model-gateway/src/policies/mod.rs}), what code embedding the policy gets.
 */
public final class SglangCacheAwarePolicy implements RoutingPolicy {
    public static final String NAME = "sglang-cache-aware";
    public static final String LIBRARY_NAME = "sglang-cache-aware-lib";

    /** The three thresholds of SGLang's {@code CacheAwareConfig}. */
    public record Config(double cacheThreshold, int balanceAbsThreshold, double balanceRelThreshold) {
        /** {@code smg launch} defaults: {@code --cache-threshold 0.3 --balance-abs-threshold 64 --balance-rel-threshold 1.5}. */
        public static final Config GATEWAY = new Config(0.3, 64, 1.5);
        /** {@code CacheAwareConfig::default()}: 0.5, 32, 1.1. */
        public static final Config LIBRARY = new Config(0.5, 32, 1.1);

        /** SGLang's imbalance test: both the absolute and the relative spread beyond their thresholds. */
        public boolean imbalanced(long maxLoad, long minLoad) {
            return maxLoad - minLoad > balanceAbsThreshold && maxLoad > balanceRelThreshold * minLoad;
        }
    }

    private final String name;
    private final Config config;
    private final RouterState state;
    private final Comparator<ScoredWorker> leastLoaded;

    /** The gateway as launched ({@link Config#GATEWAY}). */
    public SglangCacheAwarePolicy(RouterState state) {
        this(NAME, Config.GATEWAY, state);
    }

    public SglangCacheAwarePolicy(String name, Config config, RouterState state) {
        this.name = name;
        this.config = config;
        this.state = state;
        this.leastLoaded = ScoredWorker.lowestFirst(state.tieBreak());
    }

    /** The policy with the library's {@code CacheAwareConfig::default} ({@link Config#LIBRARY}). */
    public static SglangCacheAwarePolicy library(RouterState state) {
        return new SglangCacheAwarePolicy(LIBRARY_NAME, Config.LIBRARY, state);
    }

    public Config config() {
        return config;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Optional<Placement> place(RouteRequest request, List<WorkerSnapshot> candidates, long nowMs) {
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        int blocks = request.promptBlocks();
        long maxLoad = Long.MIN_VALUE;
        long minLoad = Long.MAX_VALUE;
        List<ScoredWorker> byLoad = new ArrayList<>(candidates.size());
        for (WorkerSnapshot worker : candidates) {
            long load = state.inFlight(worker, nowMs);
            maxLoad = Math.max(maxLoad, load);
            minLoad = Math.min(minLoad, load);
            int matched = state.routedMatch(worker, request);
            Map<String, Double> components = new LinkedHashMap<>();
            components.put("load", (double) load);
            components.put("prefix_blocks", (double) matched);
            components.put("match_rate", blocks == 0 ? 0.0 : (double) matched / blocks);
            byLoad.add(new ScoredWorker(worker, load, matched, components));
        }
        byLoad.sort(leastLoaded);
        if (config.imbalanced(maxLoad, minLoad)) {
            return Optional.of(ScoredWorker.placement(state, byLoad, nowMs,
                    "imbalanced (load " + minLoad + ".." + maxLoad + "): least loaded"));
        }
        List<ScoredWorker> byMatch = new ArrayList<>(byLoad);
        byMatch.sort(Comparator.comparingInt(ScoredWorker::matched).reversed().thenComparing(leastLoaded));
        ScoredWorker longest = byMatch.get(0);
        double matchRate = blocks == 0 ? 0.0 : (double) longest.matched() / blocks;
        if (matchRate > config.cacheThreshold()) {
            return Optional.of(ScoredWorker.placement(state, byMatch, nowMs,
                    String.format("prefix match rate %.2f > %.2f", matchRate, config.cacheThreshold())));
        }
        return Optional.of(ScoredWorker.placement(state, byLoad, nowMs,
                String.format("prefix match rate %.2f <= %.2f: least loaded", matchRate, config.cacheThreshold())));
    }
}
