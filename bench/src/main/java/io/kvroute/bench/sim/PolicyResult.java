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
 */
public record PolicyResult(String policy, int completed, int rejected, int failed, Latency ttftMs, Latency e2eMs,
                           long[] ttftsMs, double prefixHitRate, long preemptions, double goodputRps,
                           double throughputTokensS, double makespanS, Map<String, Integer> requestsPerRegion,
                           int parked, double gpuBusy, EstimateError ttftEstimateError) {
    public PolicyResult {
        requestsPerRegion = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(requestsPerRegion));
    }
}
