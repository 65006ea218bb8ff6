package io.kvroute.worker.engine;

/**
 * A snapshot of an engine's load, the source of worker telemetry and back-pressure.
 *
 * @param runningRequests     requests in the running batch
 * @param waitingRequests     requests accepted but not yet running (including ones still in network delay)
 * @param runningPrefill      running requests still prefilling
 * @param runningDecode       running requests decoding
 * @param queuedPrefillTokens uncached prompt tokens not yet prefilled, waiting and running
 * @param kvBlocksUsed        GPU KV pages referenced by running requests (cached blocks no request
 *                            uses are evictable and not counted)
 * @param kvBlocksTotal       GPU KV pages in the pool; 0 when the engine does not know its KV use (an
 *                            inference server that exports none): {@code kvBlocksUsed} and {@link #kvUsage()}
 *                            are then 0 and are not a reading ({@link #kvReported()})
 * @param kvBlockTokens       tokens per KV page
 * @param maxRunningRequests  the running-batch bound
 * @param prefixCacheHitRate  cached prompt tokens (GPU hits and host-tier loads) / prompt tokens over
 *                            admitted requests
 * @param tokensPerSecond     output tokens per second over a recent window
 * @param hostKvBlocksUsed    pages held by the host-DRAM prefix tier
 * @param hostKvBlocksTotal   capacity of the host tier in pages; 0 = no host tier
 * @param hostPrefixHitRate   the part of {@code prefixCacheHitRate} loaded from the host tier
 * @param queuedPrefillAttention the attention work of the queued prefill, in token pairs: the sum over the prompts
 *                            not yet prefilled of their tokens left * (their tokens already in KV + half those
 *                            left); 0 = not known. With it a router prices a long prompt's remaining chunks, which
 *                            attend to the part already computed, at what they cost
 */
public record EngineStats(int runningRequests, int waitingRequests, int runningPrefill, int runningDecode,
                          long queuedPrefillTokens, long kvBlocksUsed, long kvBlocksTotal, int kvBlockTokens,
                          int maxRunningRequests, double prefixCacheHitRate, double tokensPerSecond,
                          long hostKvBlocksUsed, long hostKvBlocksTotal, double hostPrefixHitRate, long queuedPrefillAttention) {

    /** Stats of an engine without a host tier. */
    public EngineStats(int runningRequests, int waitingRequests, int runningPrefill, int runningDecode,
                       long queuedPrefillTokens, long kvBlocksUsed, long kvBlocksTotal, int kvBlockTokens,
                       int maxRunningRequests, double prefixCacheHitRate, double tokensPerSecond) {
        this(runningRequests, waitingRequests, runningPrefill, runningDecode, queuedPrefillTokens, kvBlocksUsed,
                kvBlocksTotal, kvBlockTokens, maxRunningRequests, prefixCacheHitRate, tokensPerSecond, 0, 0, 0.0, 0);
    }

    /** Whether the engine knows its KV use; when not, {@link #kvUsage()} is 0 and means nothing. */
    public boolean kvReported() {
        return kvBlocksTotal > 0;
    }

    /** Share of the GPU KV pool referenced by requests; 0 when not {@link #kvReported() reported}. */
    public double kvUsage() {
        return kvBlocksTotal == 0 ? 0.0 : (double) kvBlocksUsed / kvBlocksTotal;
    }

    /** Share of the host tier in use; 0 without one. */
    public double hostKvUsage() {
        return hostKvBlocksTotal == 0 ? 0.0 : (double) hostKvBlocksUsed / hostKvBlocksTotal;
    }

    public EngineStats withExtraWaiting(int extra) {
        return new EngineStats(runningRequests, waitingRequests + extra, runningPrefill, runningDecode,
                queuedPrefillTokens, kvBlocksUsed, kvBlocksTotal, kvBlockTokens, maxRunningRequests,
                prefixCacheHitRate, tokensPerSecond, hostKvBlocksUsed, hostKvBlocksTotal, hostPrefixHitRate, queuedPrefillAttention);
    }
}
