package io.kvroute.router.routing;

/**
 * What a worker reports of the work it has sent to its engine, from its own record: what a worker
 * in front of a real inference server can tell beyond the server's gauges.
 *
 * @param owedPrefillTokens   prompt tokens of requests sent without a first token yet (cached ones included)
 * @param owedPrefillRequests those requests
 * @param decodingContextTokens prompt plus streamed tokens of the requests decoding
 * @param recentTtftMs        recent time from sending to first token; 0 = none yet
 * @param decodeMsPerToken    recent time between a sequence's tokens; 0 = none yet
 */
public record ObservedWork(long owedPrefillTokens, int owedPrefillRequests, long decodingContextTokens, double recentTtftMs,
                           double decodeMsPerToken) {
    public static final ObservedWork NONE = new ObservedWork(0, 0, 0, 0.0, 0.0);
}
