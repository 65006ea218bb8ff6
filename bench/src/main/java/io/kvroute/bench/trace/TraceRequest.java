package io.kvroute.bench.trace;

import java.util.Set;

/**
 * One request of a trace: when it arrives, how long its prompt and output are, and the ids of its
 * prompt's blocks ({@code blockTokens} tokens each; equal ids mean an identical prefix block,
 * ids are prefix-chained so an id never appears at two positions); its tenant, the regions it may
 * run in (empty: any) and its priority (INTERACTIVE or BATCH, the wire default).
 */
public record TraceRequest(long arrivalMs, int inputTokens, int outputTokens, long[] blockIds, int blockTokens, String tenant,
                           Set<String> allowedRegions, String priority) {
    public static final String DEFAULT_TENANT = "default";
    public static final String BATCH = "BATCH";
    public static final String INTERACTIVE = "INTERACTIVE";

    public TraceRequest {
        allowedRegions = allowedRegions == null ? Set.of() : Set.copyOf(allowedRegions);
        priority = priority == null ? BATCH : priority;
    }

    public TraceRequest(long arrivalMs, int inputTokens, int outputTokens, long[] blockIds, int blockTokens, String tenant) {
        this(arrivalMs, inputTokens, outputTokens, blockIds, blockTokens, tenant, Set.of(), BATCH);
    }

    public TraceRequest(long arrivalMs, int inputTokens, int outputTokens, long[] blockIds, int blockTokens) {
        this(arrivalMs, inputTokens, outputTokens, blockIds, blockTokens, DEFAULT_TENANT);
    }

    public TraceRequest withArrival(long newArrivalMs) {
        return new TraceRequest(newArrivalMs, inputTokens, outputTokens, blockIds, blockTokens, tenant, allowedRegions, priority);
    }

    /** This request from {@code newTenant}, allowed in {@code regions} (empty: any), at {@code newPriority}. */
    public TraceRequest withTenancy(String newTenant, Set<String> regions, String newPriority) {
        return new TraceRequest(arrivalMs, inputTokens, outputTokens, blockIds, blockTokens, newTenant, regions, newPriority);
    }
}
