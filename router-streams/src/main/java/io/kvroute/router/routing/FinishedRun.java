package io.kvroute.router.routing;

/**
 * What a worker reported about one finished run, with what the router knew of that worker when
 * the result came: a router learns its pool's engine speed from it ({@link EngineSpeeds}).
 *
 * @param ttftMs            from the worker sending the run to its engine to the first token
 * @param decodeMs          from the first token to the last; negative when not reported
 * @param queuedAheadTokens prompt tokens the engine still owed earlier runs when this one was sent; negative when
 *                          not reported
 * @param promptTokensDuringDecode prompt tokens of other runs prefilled while this one decoded (its decode steps
 *                          carried their prefill); negative when not reported
 * @param decodingSequences sequences decoding on that worker at the time (its telemetry)
 * @param contextTokens     the context they attend to (its telemetry)
 * @param prefixHitRate     the worker's prefix-cache hit rate (its telemetry): the share of the owed tokens ahead
 *                          taken to be cached
 */
public record FinishedRun(String pool, int promptTokens, int cachedTokens, int completionTokens, long ttftMs, long decodeMs,
                          long queuedAheadTokens, long promptTokensDuringDecode, int decodingSequences, long contextTokens,
                          double prefixHitRate) {

    /** A run {@code worker} reported, with what its latest telemetry says of its decoding batch and cache. */
    public static FinishedRun of(WorkerSnapshot worker, int promptTokens, int cachedTokens, int completionTokens, long ttftMs,
                                 long decodeMs, long queuedAheadTokens, long promptTokensDuringDecode) {
        long context = Math.max(worker.observed().decodingContextTokens(), worker.kvBlocksUsed() * worker.kvBlockTokens());
        return new FinishedRun(EngineSpeeds.poolOf(worker), promptTokens, cachedTokens, completionTokens, ttftMs, decodeMs,
                queuedAheadTokens, promptTokensDuringDecode, worker.runningDecode(), context, worker.prefixHitRate());
    }
}
