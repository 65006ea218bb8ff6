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
 * @param observed            the worker's own record of what it sent and got back ({@link ObservedLoad#NONE} when the
 *                            engine is not observed by an {@link ObservingEngine})
 */
public record EngineStats(int runningRequests, int waitingRequests, int runningPrefill, int runningDecode,
                          long queuedPrefillTokens, long kvBlocksUsed, long kvBlocksTotal, int kvBlockTokens,
                          int maxRunningRequests, double prefixCacheHitRate, double tokensPerSecond,
                          long hostKvBlocksUsed, long hostKvBlocksTotal, double hostPrefixHitRate, long queuedPrefillAttention,
                          ObservedLoad observed) {

    public EngineStats {
        observed = observed == null ? ObservedLoad.NONE : observed;
    }

    /** Stats without the worker's own observations. */
    public EngineStats(int runningRequests, int waitingRequests, int runningPrefill, int runningDecode,
                       long queuedPrefillTokens, long kvBlocksUsed, long kvBlocksTotal, int kvBlockTokens,
                       int maxRunningRequests, double prefixCacheHitRate, double tokensPerSecond,
                       long hostKvBlocksUsed, long hostKvBlocksTotal, double hostPrefixHitRate, long queuedPrefillAttention) {
        this(runningRequests, waitingRequests, runningPrefill, runningDecode, queuedPrefillTokens, kvBlocksUsed, kvBlocksTotal,
                kvBlockTokens, maxRunningRequests, prefixCacheHitRate, tokensPerSecond, hostKvBlocksUsed, hostKvBlocksTotal,
                hostPrefixHitRate, queuedPrefillAttention, ObservedLoad.NONE);
    }

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
                prefixCacheHitRate, tokensPerSecond, hostKvBlocksUsed, hostKvBlocksTotal, hostPrefixHitRate, queuedPrefillAttention,
                observed);
    }

    /**
     * What a worker in front of a real inference server can report, these stats being the server's: the gauges its
     * {@code /metrics} page exposes (running and waiting requests, KV use, prefix-cache hit rate) and the batch limit
     * and output rate the worker knows itself, with the worker's own record of what it sent ({@code observed}).
     * Nothing a server does not expose is kept: which running requests still prefill, how many prompt tokens are left
     * to prefill and their attention, the host tier; decoding requests are the worker's own count of those streaming.
     * Every worker reports through this, the simulated GPU's as the OpenAI-compatible server's.
     */
    public EngineStats observable(ObservedLoad own) {
        return new EngineStats(runningRequests, waitingRequests, 0, own.decodingRequests(), 0, kvBlocksUsed, kvBlocksTotal,
                kvBlockTokens, maxRunningRequests, prefixCacheHitRate, tokensPerSecond, 0, 0, 0.0, 0, own);
    }

    /** These stats, all the engine could tell (the simulator's white-box telemetry), with the worker's own record. */
    public EngineStats withObserved(ObservedLoad own) {
        return new EngineStats(runningRequests, waitingRequests, runningPrefill, runningDecode, queuedPrefillTokens, kvBlocksUsed,
                kvBlocksTotal, kvBlockTokens, maxRunningRequests, prefixCacheHitRate, tokensPerSecond, hostKvBlocksUsed,
                hostKvBlocksTotal, hostPrefixHitRate, queuedPrefillAttention, own);
    }
}
