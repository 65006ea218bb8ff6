package io.kvroute.bench.sim;

import io.kvroute.bench.trace.TraceRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A reference for how much placement can matter on a trace, not a policy a router could run: the TTFT excess of
 * an idealised balancer that knows every GPU's exact prefill work, holds requests in one queue, and whenever a GPU
 * can take work gives the next request by its {@link Order} the GPU where its first token comes soonest.
 *
 * <p>It is optimistic everywhere but in its order: every GPU holds every block an earlier request had (the cache
 * of {@link Bounds}), decode steps and KV limits cost nothing, and a prefill that joins a busy GPU adds only its
 * own tokens' time, without another step's fixed overhead (it rides in a step already running). So when a
 * workload's best baseline is close to it under every order, no router does much better on that workload; it is
 * not a strict lower bound, since no order here is the best one for a percentile.
 */
public final class IdealBalancer {
    /** Which waiting request goes next. */
    public enum Order {
        /** First come, first served: each request is placed as it arrives. */
        ARRIVAL,
        /** The least prefill work first (uncached prompt tokens), arrival order among equals. */
        SHORTEST_FIRST,
        /** The largest 1 % of prompts (by uncached tokens) after every other waiting request, arrival order otherwise. */
        LARGEST_PERCENT_LAST
    }

    private IdealBalancer() {
    }

    /** {@link #excessMs(List, SimConfig, Order)} in arrival order. */
    public static long[] excessMs(List<TraceRequest> trace, SimConfig config) {
        return excessMs(trace, config, Order.ARRIVAL);
    }

    /** Each request's TTFT excess over its oracle TTFT ({@link Bounds#oracleTtftsMs}) under the idealised balancer, in trace order. */
    public static long[] excessMs(List<TraceRequest> trace, SimConfig config, Order order) {
        int n = trace.size();
        long[] oracle = new long[n];
        int[] leadingSeen = new int[n];
        Bounds.oracleAndLeadingSeen(trace, config, oracle, leadingSeen);
        List<Gpu> gpus = new ArrayList<>();
        for (FleetSpec.Pool pool : config.fleet().pools()) {
            EngineProfile engine = config.engineOf(pool);
            for (int g = 0; g < pool.gpus(); g++) {
                gpus.add(new Gpu(pool.region(), pool.delayMs(), engine));
            }
        }
        Integer[] byArrival = new Integer[n];
        Arrays.setAll(byArrival, i -> i);
        Arrays.sort(byArrival, Comparator.comparingLong(i -> trace.get(i).arrivalMs()));
        long[] uncached = new long[n];
        for (int i = 0; i < n; i++) {
            uncached[i] = Math.max(0, trace.get(i).inputTokens() - (long) leadingSeen[i] * trace.get(i).blockTokens());
        }
        long largest = largestPercentFrom(uncached);
        Comparator<Integer> next = switch (order) {
            case ARRIVAL -> Comparator.comparingLong(i -> trace.get(i).arrivalMs());
            case SHORTEST_FIRST -> Comparator.<Integer>comparingLong(i -> uncached[i]).thenComparingLong(i -> trace.get(i).arrivalMs());
            case LARGEST_PERCENT_LAST -> Comparator.<Integer, Boolean>comparing(i -> uncached[i] >= largest)
                    .thenComparingLong(i -> trace.get(i).arrivalMs());
        };
        PriorityQueue<Integer> waiting = new PriorityQueue<>(next.thenComparingInt(i -> i));
        long[] excess = new long[n];
        int arrived = 0;
        for (int placed = 0; placed < n; placed++) {
            // the next moment a GPU can take work, or the next arrival when none waits
            double nowMs = gpus.stream().mapToDouble(g -> g.freeAtMs).min().orElseThrow();
            if (waiting.isEmpty()) {
                nowMs = Math.max(nowMs, trace.get(byArrival[arrived]).arrivalMs());
            }
            while (arrived < n && trace.get(byArrival[arrived]).arrivalMs() <= nowMs) {
                waiting.add(byArrival[arrived++]);
            }
            int i = waiting.poll();
            TraceRequest r = trace.get(i);
            Gpu best = null;
            double bestFirstToken = Double.POSITIVE_INFINITY;
            double bestDone = 0;
            for (Gpu gpu : gpus) {
                if (!r.allowedRegions().isEmpty() && !r.allowedRegions().contains(gpu.region)) {
                    continue;
                }
                double ready = r.arrivalMs() + config.dispatchLatencyMs() + gpu.delayMs;
                long alone = Bounds.idlePrefillMs(gpu.engine.costModel(), gpu.engine.limits(), r, leadingSeen[i]);
                double done;
                if (gpu.freeAtMs <= ready) {
                    done = ready + alone;
                } else {
                    // joins a running step: its chunks' fixed overhead is already paid, but it is never faster than alone
                    done = Math.max(gpu.freeAtMs + Math.max(0, alone - chunks(gpu.engine, uncached[i])
                            * gpu.engine.costModel().stepOverheadMs()), ready + alone);
                }
                double firstToken = done + gpu.delayMs;
                if (firstToken < bestFirstToken) {
                    best = gpu;
                    bestFirstToken = firstToken;
                    bestDone = done;
                }
            }
            if (best == null) {
                throw new IllegalArgumentException("request " + i + " allows no region of the fleet " + config.fleet());
            }
            best.freeAtMs = bestDone;
            excess[i] = Math.max(0, Math.round(bestFirstToken - r.arrivalMs()) - oracle[i]);
        }
        return excess;
    }

    /** The smallest count of uncached tokens among the largest 1 % of requests (at least one request). */
    private static long largestPercentFrom(long[] uncached) {
        if (uncached.length == 0) {
            return Long.MAX_VALUE;
        }
        long[] sorted = uncached.clone();
        Arrays.sort(sorted);
        return sorted[Math.max(0, sorted.length - Math.max(1, sorted.length / 100))];
    }

    /** Prefill chunks the engine needs for {@code uncachedTokens} (at least one). */
    private static long chunks(EngineProfile engine, long uncachedTokens) {
        long perStep = engine.limits().maxBatchedTokens();
        return Math.max(1, (uncachedTokens + perStep - 1) / perStep);
    }

    private static final class Gpu {
        final String region;
        final long delayMs;
        final EngineProfile engine;
        double freeAtMs = Double.NEGATIVE_INFINITY;

        Gpu(String region, long delayMs, EngineProfile engine) {
            this.region = region;
            this.delayMs = delayMs;
            this.engine = engine;
        }
    }
}
