package io.kvroute.worker.engine;

/**
 * A snapshot of an engine's load, the source of worker telemetry and back-pressure.
 *
 * @param runningRequests     requests in the running batch
 * @param waitingRequests     requests accepted but not yet running (including ones still in network delay)
 * @param runningPrefill      running requests still prefilling
 * @param runningDecode       running requests decoding
 * @param queuedPrefillTokens uncached prompt tokens not yet prefilled, waiting and running
 * @param kvBlocksUsed        KV pages referenced by requests
 * @param kvBlocksTotal       KV pages in the pool
 * @param kvBlockTokens       tokens per KV page
 * @param maxRunningRequests  the running-batch bound
 * @param prefixCacheHitRate  cached prompt tokens / prompt tokens over admitted requests
 * @param tokensPerSecond     output tokens per second over a recent window
 */
public record EngineStats(int runningRequests, int waitingRequests, int runningPrefill, int runningDecode,
                          long queuedPrefillTokens, long kvBlocksUsed, long kvBlocksTotal, int kvBlockTokens,
                          int maxRunningRequests, double prefixCacheHitRate, double tokensPerSecond) {

    public double kvUsage() {
        return kvBlocksTotal == 0 ? 0.0 : (double) kvBlocksUsed / kvBlocksTotal;
    }

    public EngineStats withExtraWaiting(int extra) {
        return new EngineStats(runningRequests, waitingRequests + extra, runningPrefill, runningDecode,
                queuedPrefillTokens, kvBlocksUsed, kvBlocksTotal, kvBlockTokens, maxRunningRequests,
                prefixCacheHitRate, tokensPerSecond);
    }
}
