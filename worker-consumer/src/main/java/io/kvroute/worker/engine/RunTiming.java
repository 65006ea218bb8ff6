package io.kvroute.worker.engine;

/**
 * How one finished run went, as the worker saw it: what a router learns engine speed from.
 *
 * @param ttftMs            from sending the run to the engine to its first token; -1 when unknown
 * @param decodeMs          from the first token to the last; -1 when unknown
 * @param queuedAheadTokens prompt tokens the engine still owed earlier requests when this one was sent (its prefill
 *                          waited for theirs, the part they had cached aside); -1 when unknown
 * @param promptTokensDuringDecode prompt tokens of the other runs whose first token came while this one decoded: the
 *                          prefill its decode steps carried too (cached tokens included); -1 when unknown
 */
public record RunTiming(long ttftMs, long decodeMs, long queuedAheadTokens, long promptTokensDuringDecode) {
    public static final RunTiming UNKNOWN = new RunTiming(-1, -1, -1, -1);
}
