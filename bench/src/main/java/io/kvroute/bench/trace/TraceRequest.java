package io.kvroute.bench.trace;

/**
 * One request of a trace: when it arrives, how long its prompt and output are, and the ids of its
 * prompt's blocks ({@code blockTokens} tokens each; equal ids mean an identical prefix block,
 * ids are prefix-chained so an id never appears at two positions).
 */
public record TraceRequest(long arrivalMs, int inputTokens, int outputTokens, long[] blockIds, int blockTokens, String tenant) {
    public static final String DEFAULT_TENANT = "default";

    public TraceRequest(long arrivalMs, int inputTokens, int outputTokens, long[] blockIds, int blockTokens) {
        this(arrivalMs, inputTokens, outputTokens, blockIds, blockTokens, DEFAULT_TENANT);
    }

    public TraceRequest withArrival(long newArrivalMs) {
        return new TraceRequest(newArrivalMs, inputTokens, outputTokens, blockIds, blockTokens, tenant);
    }
}
