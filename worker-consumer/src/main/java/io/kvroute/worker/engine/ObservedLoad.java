package io.kvroute.worker.engine;

/**
 * What a worker knows of its engine's load from the requests it sent and what came back, without
 * any view inside the server: the part of its telemetry that is the same whether the engine is a
 * real OpenAI-compatible server or the simulated GPU.
 *
 * @param owedPrefillTokens   prompt tokens of the requests sent and not yet answered with a first token: the
 *                            prefill the engine still owes them, its own queue included (cached tokens are in it:
 *                            which are cached is known only once the server reports usage)
 * @param owedPrefillRequests those requests
 * @param decodingRequests    requests that have their first token and have not finished
 * @param decodingContextTokens the context those requests attend to: their prompt tokens plus the tokens streamed
 * @param recentTtftMs        time from sending to the first token, averaged over recent requests; 0 before any
 * @param decodeMsPerToken    time between a sequence's tokens after its first, averaged over recent requests; 0
 *                            before any
 */
public record ObservedLoad(long owedPrefillTokens, int owedPrefillRequests, int decodingRequests, long decodingContextTokens,
                           double recentTtftMs, double decodeMsPerToken) {
    /** Nothing observed: an engine not wrapped in an {@link ObservingEngine}. */
    public static final ObservedLoad NONE = new ObservedLoad(0, 0, 0, 0, 0.0, 0.0);
}
