package io.kvroute.bench.sim;

import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.worker.engine.sim.CostModel;
import io.kvroute.worker.engine.sim.EngineLimits;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What no policy can beat on a trace.
 *
 * <ul>
 *   <li>{@code prefixHitRateUpper}: one infinite cache shared by the whole fleet; a prompt block
 *       is a hit if any earlier request of the trace had it. Token-weighted (a trailing partial
 *       block weighs its tokens).</li>
 *   <li>{@code ttftOracleMs}: each request alone on an idle GPU that holds every prefix block seen
 *       before, in the pool where that is fastest: dispatch latency + the least, over the fleet's
 *       pools, of twice the pool's delay + its engine's prefill time for the uncached part (chunks
 *       of the engine's step token budget, each step's cost-model time rounded up to a ms as the
 *       engine does; one step = CostModel idle prefill for prompts within the budget). On a fleet
 *       of one engine that is the nearest region; on a mixed fleet a request placed on a slower
 *       pool than its best shows as excess. The engine's own caching rules apply (only whole
 *       page-aligned blocks are cached; a fully cached prompt recomputes its last block).</li>
 * </ul>
 */
public record Bounds(double prefixHitRateUpper, Latency ttftOracleMs) {

    public static Bounds compute(List<TraceRequest> trace, SimConfig config) {
        long[] oracle = new long[trace.size()];
        double hitRate = walk(trace, config, oracle, new int[trace.size()]);
        return new Bounds(hitRate, Latency.of(oracle));
    }

    /**
     * Each request's oracle TTFT, in trace order: a lower bound on its TTFT under any policy, so
     * no policy's TTFT percentile can be below the same percentile of these (checked by BoundsTest).
     */
    static long[] oracleTtftsMs(List<TraceRequest> trace, SimConfig config) {
        long[] oracle = new long[trace.size()];
        walk(trace, config, oracle, new int[trace.size()]);
        return oracle;
    }

    /**
     * Fills {@code oracle} with each request's oracle TTFT and {@code leadingSeen} with how many of its leading
     * blocks an earlier request of the trace had (what a cache holding every block seen before would hit).
     */
    static void oracleAndLeadingSeen(List<TraceRequest> trace, SimConfig config, long[] oracle, int[] leadingSeen) {
        walk(trace, config, oracle, leadingSeen);
    }

    /** Fills {@code oracle} and {@code leadingSeen} (see above) and returns the infinite-cache hit rate. */
    private static double walk(List<TraceRequest> trace, SimConfig config, long[] oracle, int[] leadingSeen) {
        // each engine in the fleet at its nearest pool: the only candidates for a request's best
        Map<EngineProfile, Long> nearest = new LinkedHashMap<>();
        for (FleetSpec.Pool pool : config.fleet().pools()) {
            nearest.merge(config.engineOf(pool), pool.delayMs(), Math::min);
        }
        EngineProfile[] engines = nearest.keySet().toArray(new EngineProfile[0]);
        long[] network = new long[engines.length];
        for (int e = 0; e < engines.length; e++) {
            network[e] = config.dispatchLatencyMs() + 2 * nearest.get(engines[e]);
        }
        Set<Long> seen = new HashSet<>();
        long promptTokens = 0;
        long hitTokens = 0;
        for (int i = 0; i < trace.size(); i++) {
            TraceRequest r = trace.get(i);
            long[] blocks = r.blockIds();
            int leading = 0;
            boolean leadingRun = true;
            for (int b = 0; b < blocks.length; b++) {
                int tokens = Math.max(0, Math.min(r.blockTokens(), r.inputTokens() - b * r.blockTokens()));
                if (seen.contains(blocks[b])) {
                    hitTokens += tokens;
                    if (leadingRun) {
                        leading++;
                    }
                } else {
                    leadingRun = false;
                }
            }
            promptTokens += r.inputTokens();
            long best = Long.MAX_VALUE;
            for (int e = 0; e < engines.length; e++) {
                best = Math.min(best, network[e] + idlePrefillMs(engines[e].costModel(), engines[e].limits(), r, leading));
            }
            oracle[i] = best;
            leadingSeen[i] = leading;
            for (long block : blocks) {
                seen.add(block);
            }
        }
        return promptTokens == 0 ? 0.0 : (double) hitTokens / promptTokens;
    }

    /** Time the engine takes, idle, to prefill {@code r} holding its first {@code leadingCached} blocks. */
    static long idlePrefillMs(CostModel cost, EngineLimits limits, TraceRequest r, int leadingCached) {
        int cacheable = r.blockTokens() % 16 == 0 ? Math.min(r.blockIds().length, r.inputTokens() / r.blockTokens()) : 0;
        int hits = Math.min(leadingCached, cacheable);
        if ((long) hits * r.blockTokens() >= r.inputTokens()) {
            hits--;
        }
        long computed = (long) Math.max(0, hits) * r.blockTokens();
        long total = 0;
        while (computed < r.inputTokens()) {
            long chunk = Math.min(limits.maxBatchedTokens(), r.inputTokens() - computed);
            total += (long) Math.ceil(cost.stepMs(chunk, CostModel.prefillAttention(chunk, computed), 0, 0));
            computed += chunk;
        }
        return total;
    }
}
