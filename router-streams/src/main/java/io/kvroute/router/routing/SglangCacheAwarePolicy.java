package io.kvroute.router.routing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Baseline: SGLang model gateway's {@code cache_aware} policy, with its default configuration.
 *
 * <ol>
 *   <li>load = in-flight requests: running + waiting in telemetry plus the router's pending ones
 *       (SGLang counts the requests it routed and has not seen finish);</li>
 *   <li>if max − min load &gt; {@value #BALANCE_ABS_THRESHOLD} and max &gt;
 *       {@value #BALANCE_REL_THRESHOLD} × min, the fleet is imbalanced: the least loaded worker
 *       wins, whatever the prefix (the global gate, a known failure mode);</li>
 *   <li>otherwise the candidate with the longest prefix match in the router-side approximate
 *       tree (what the router itself routed there, LRU-trimmed: {@link ApproximatePrefixIndex})
 *       wins if matched / prompt blocks &gt; {@value #CACHE_THRESHOLD} (longest match, then lower
 *       load, then smaller id);</li>
 *   <li>else (a miss) the least loaded worker wins: the current gateway behaviour. Older SGLang
 *       routers sent a miss to the worker with the smallest tree; that variant is not modelled.</li>
 * </ol>
 * The request's blocks are recorded on the chosen worker in both modes (by the router), as
 * SGLang inserts the text into the tree in both modes. Match rate is in blocks, not characters.
 */
public final class SglangCacheAwarePolicy implements RoutingPolicy {
    public static final String NAME = "sglang-cache-aware";
    public static final int BALANCE_ABS_THRESHOLD = 32;
    public static final double BALANCE_REL_THRESHOLD = 1.1;
    public static final double CACHE_THRESHOLD = 0.5;


    private final RouterState state;
    private final Comparator<ScoredWorker> leastLoaded;

    public SglangCacheAwarePolicy(RouterState state) {
        this.state = state;
        this.leastLoaded = ScoredWorker.lowestFirst(state.tieBreak());
    }

    @Override
    public String name() {
        return NAME;
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
        if (imbalanced(maxLoad, minLoad)) {
            return Optional.of(ScoredWorker.placement(state, byLoad, nowMs,
                    "imbalanced (load " + minLoad + ".." + maxLoad + "): least loaded"));
        }
        List<ScoredWorker> byMatch = new ArrayList<>(byLoad);
        byMatch.sort(Comparator.comparingInt(ScoredWorker::matched).reversed().thenComparing(leastLoaded));
        ScoredWorker longest = byMatch.get(0);
        double matchRate = blocks == 0 ? 0.0 : (double) longest.matched() / blocks;
        if (matchRate > CACHE_THRESHOLD) {
            return Optional.of(ScoredWorker.placement(state, byMatch, nowMs,
                    String.format("prefix match rate %.2f > %.2f", matchRate, CACHE_THRESHOLD)));
        }
        return Optional.of(ScoredWorker.placement(state, byLoad, nowMs,
                String.format("prefix match rate %.2f <= %.2f: least loaded", matchRate, CACHE_THRESHOLD)));
    }

    static boolean imbalanced(long maxLoad, long minLoad) {
        return maxLoad - minLoad > BALANCE_ABS_THRESHOLD && maxLoad > BALANCE_REL_THRESHOLD * minLoad;
    }
}
