package io.kvroute.local.trace;

/**
 * One request of a trace: when it arrives, how long its prompt and output are, and the ids of its
 * prompt's blocks ({@code blockTokens} tokens each; equal ids mean an identical prefix block).
 */
public record TraceRequest(long arrivalMs, int inputTokens, int outputTokens, long[] blockIds, int blockTokens) {
}
