package io.kvroute.bench.sim;

import java.util.Map;

/**
 * What one policy did over one trace in the simulator. Latencies are what the user observes:
 * time parked at the router, dispatch latency, the network both ways, queueing and prefill.
 *
 * @param completed          requests that produced all their tokens
 * @param rejected           requests parked longer than the router's limit (NO_CAPACITY)
 * @param failed             requests the engine refused (larger than its KV pool)
 * @param ttftMs             time to first token, arrival to the first token reaching the user
 * @param e2eMs              arrival to the last token reaching the user
 * @param ttftsMs            every completed request's TTFT, in trace order (for CDF plots)
 * @param prefixHitRate      cached prompt tokens / prompt tokens over completed requests
 * @param preemptions        recompute preemptions, all engines together
 * @param goodputRps         requests with TTFT ≤ the SLO per second of makespan
 * @param throughputTokensS  output tokens per second of makespan
 * @param makespanS          first arrival to last completion, seconds
 * @param requestsPerRegion  dispatched requests per region
 * @param parked             requests that found no candidate at arrival and waited in the router's parked store
 * @param gpuBusy            engine step time / (GPUs × makespan): how close the fleet ran to saturation
 * @param ttftEstimateError  how far the policy's own TTFT estimates were from the realized TTFTs ({@link EstimateError#NONE}
 *                           for a policy that makes none)
 * @param servedRequests     the trace index of each entry of {@code ttftsMs} (ascending), so a TTFT can be set against
 *                           its own request's oracle; empty when the result was built without it
 * @param ttftExcessMs       over the served requests, TTFT minus the request's own oracle TTFT ({@link Bounds}): the delay
 *                           the routing (queueing, cache misses, a far region) added to what the request needed alone;
 *                           {@link Latency#EMPTY} until {@link #withOracle} set it
 * @param slowdown           over the served requests, TTFT / the request's own oracle TTFT ({@link Slowdown#EMPTY} until
 *                           {@link #withOracle} set it)
 */
public record PolicyResult(String policy, int completed, int rejected, int failed, Latency ttftMs, Latency e2eMs,
                           long[] ttftsMs, double prefixHitRate, long preemptions, double goodputRps,
                           double throughputTokensS, double makespanS, Map<String, Integer> requestsPerRegion,
                           int parked, double gpuBusy, EstimateError ttftEstimateError, int[] servedRequests,
                           Latency ttftExcessMs, Slowdown slowdown) {
    public PolicyResult {
        requestsPerRegion = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(requestsPerRegion));
        if (servedRequests.length != 0 && servedRequests.length != ttftsMs.length) {
            throw new IllegalArgumentException("served requests (" + servedRequests.length + ") must match the TTFTs ("
                    + ttftsMs.length + ")");
        }
    }

    /** A result that does not know which request each TTFT belongs to, so without excess or slowdown. */
    public PolicyResult(String policy, int completed, int rejected, int failed, Latency ttftMs, Latency e2eMs,
                        long[] ttftsMs, double prefixHitRate, long preemptions, double goodputRps,
                        double throughputTokensS, double makespanS, Map<String, Integer> requestsPerRegion,
                        int parked, double gpuBusy, EstimateError ttftEstimateError) {
        this(policy, completed, rejected, failed, ttftMs, e2eMs, ttftsMs, prefixHitRate, preemptions, goodputRps,
                throughputTokensS, makespanS, requestsPerRegion, parked, gpuBusy, ttftEstimateError, new int[0],
                Latency.EMPTY, Slowdown.EMPTY);
    }

    /**
     * This result with {@link #ttftExcessMs} and {@link #slowdown} set against {@code oracleTtftsMs}, each request's
     * oracle TTFT in trace order ({@link Bounds#oracleTtftsMs}): served request {@code servedRequests[k]} is compared
     * with its own oracle, never another's. Rejected and failed requests have no TTFT and are left out.
     */
    public PolicyResult withOracle(long[] oracleTtftsMs) {
        if (servedRequests.length != ttftsMs.length) {
            throw new IllegalStateException("result of " + policy + " does not say which request each of its "
                    + ttftsMs.length + " TTFTs belongs to");
        }
        long[] excess = new long[ttftsMs.length];
        double[] ratios = new double[ttftsMs.length];
        for (int k = 0; k < ttftsMs.length; k++) {
            int request = servedRequests[k];
            if (request < 0 || request >= oracleTtftsMs.length) {
                throw new IllegalArgumentException("served request " + request + " is not in the oracle's "
                        + oracleTtftsMs.length + " requests");
            }
            long oracle = oracleTtftsMs[request];
            excess[k] = ttftsMs[k] - oracle;
            ratios[k] = (double) ttftsMs[k] / Math.max(1, oracle);
        }
        return new PolicyResult(policy, completed, rejected, failed, ttftMs, e2eMs, ttftsMs, prefixHitRate, preemptions,
                goodputRps, throughputTokensS, makespanS, requestsPerRegion, parked, gpuBusy, ttftEstimateError,
                servedRequests, Latency.of(excess), Slowdown.of(ratios));
    }
}
