package io.kvroute.router.routing;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One worker's last reported state, as the router sees it. Immutable; built from a telemetry
 * record by the topology and directly by the simulator and tests.
 *
 * @param kvBlocksTotal   the worker's KV capacity in blocks; 0 when the worker does not know its KV use
 *                        (an inference server that exports none), {@link #kvReported()}
 * @param kvBlockTokens   tokens per KV block of the worker's engine (to size a request in blocks)
 * @param queuedPrefillTokens uncached prompt tokens the worker has not prefilled yet
 * @param queuedPrefillAttention the attention work of that prefill in token pairs (each prompt's tokens left *
 *                        (its tokens already in KV + half those left), summed); 0 when the worker does not report it
 * @param tokensPerSecond measured throughput; 0 when unknown
 * @param observedAtMs    when the worker took this snapshot (epoch ms, worker clock)
 * @param rateLimitedUntilMs the worker's pool refuses work (HTTP 429, quota exhausted) until this
 *                        epoch ms; 0 (or less) when it is not rate limited
 * @param pool            the model and hardware class behind the worker, whose speed routers learn; "" = not named
 * @param observed        the worker's own record of what it sent ({@link ObservedWork#NONE} from a worker that
 *                        does not report it)
 * @param denseId         ignored when given: always the {@link WorkerIds} id of {@code workerId}, by which per-worker
 *                        routing state is kept in arrays (a decision reads it for every candidate; a map lookup per
 *                        candidate and state were cache misses at 1,000 workers). Build snapshots without it.
 */
public record WorkerSnapshot(
        String workerId,
        String region,
        Set<String> models,
        List<Integer> ownedPartitions,
        long kvBlocksTotal,
        long kvBlocksUsed,
        int kvBlockTokens,
        double kvUsage,
        int running,
        int waiting,
        int runningPrefill,
        int runningDecode,
        long queuedPrefillTokens,
        long queuedPrefillAttention,
        int maxRunning,
        double prefixHitRate,
        double tokensPerSecond,
        WorkerHealth status,
        long observedAtMs,
        long rateLimitedUntilMs,
        String pool,
        ObservedWork observed,
        int denseId) {

    public WorkerSnapshot {
        workerId = WorkerIds.canonical(Objects.requireNonNull(workerId, "workerId"));
        denseId = WorkerIds.find(workerId);
        region = CanonicalNames.canonical(Objects.requireNonNull(region, "region"));
        models = CanonicalNames.canonical(models);
        ownedPartitions = List.copyOf(ownedPartitions);
        Objects.requireNonNull(status, "status");
        pool = pool == null ? "" : CanonicalNames.canonical(pool);
        observed = observed == null ? ObservedWork.NONE : observed;
        if (kvBlockTokens <= 0) {
            kvBlockTokens = 16;
        }
    }

    /** A snapshot as the worker reported it; its dense id is filled in. */
    public WorkerSnapshot(String workerId, String region, Set<String> models, List<Integer> ownedPartitions, long kvBlocksTotal,
                          long kvBlocksUsed, int kvBlockTokens, double kvUsage, int running, int waiting, int runningPrefill,
                          int runningDecode, long queuedPrefillTokens, long queuedPrefillAttention, int maxRunning,
                          double prefixHitRate, double tokensPerSecond, WorkerHealth status, long observedAtMs,
                          long rateLimitedUntilMs, String pool, ObservedWork observed) {
        this(workerId, region, models, ownedPartitions, kvBlocksTotal, kvBlocksUsed, kvBlockTokens, kvUsage, running, waiting,
                runningPrefill, runningDecode, queuedPrefillTokens, queuedPrefillAttention, maxRunning, prefixHitRate,
                tokensPerSecond, status, observedAtMs, rateLimitedUntilMs, pool, observed, -1);
    }

    /**
     * Whether the worker knows its KV use. One that does not reports a capacity and a usage of 0,
     * which is not an empty cache: the router prices it as {@link UnknownKv} says, never as empty.
     */
    public boolean kvReported() {
        return kvBlocksTotal > 0 || kvUsage > 0;
    }

    /** This snapshot with {@code blocksUsed} KV blocks in use and a usage of {@code usage}, the rest as it is. */
    WorkerSnapshot withKvUse(long blocksUsed, double usage) {
        return new WorkerSnapshot(workerId, region, models, ownedPartitions, kvBlocksTotal, blocksUsed, kvBlockTokens, usage,
                running, waiting, runningPrefill, runningDecode, queuedPrefillTokens, queuedPrefillAttention, maxRunning,
                prefixHitRate, tokensPerSecond, status, observedAtMs, rateLimitedUntilMs, pool, observed);
    }

    public long ageMs(long nowMs) {
        return nowMs - observedAtMs;
    }

    /** A builder with idle, healthy defaults; convenient in tests and the simulator. */
    public static Builder builder(String workerId, String region) {
        return new Builder(workerId, region);
    }

    /** Mutable builder for {@link WorkerSnapshot}. */
    public static final class Builder {
        private final String workerId;
        private final String region;
        private Set<String> models = Set.of("llama-3.1-8b");
        private List<Integer> ownedPartitions = List.of(0);
        private long kvBlocksTotal = 28_000;
        private long kvBlocksUsed;
        private int kvBlockTokens = 16;
        private Double kvUsage;
        private int running;
        private int waiting;
        private int runningPrefill;
        private int runningDecode;
        private long queuedPrefillTokens;
        private long queuedPrefillAttention;
        private int maxRunning = 256;
        private double prefixHitRate;
        private double tokensPerSecond;
        private WorkerHealth status = WorkerHealth.HEALTHY;
        private long observedAtMs;
        private long rateLimitedUntilMs;
        private String pool = "";
        private ObservedWork observed = ObservedWork.NONE;

        private Builder(String workerId, String region) {
            this.workerId = workerId;
            this.region = region;
        }

        public Builder models(Set<String> value) { this.models = value; return this; }
        public Builder ownedPartitions(List<Integer> value) { this.ownedPartitions = value; return this; }
        public Builder kvBlocks(long total, long used) { this.kvBlocksTotal = total; this.kvBlocksUsed = used; return this; }
        public Builder kvBlockTokens(int value) { this.kvBlockTokens = value; return this; }
        public Builder kvUsage(double value) { this.kvUsage = value; return this; }
        public Builder running(int value) { this.running = value; return this; }
        public Builder waiting(int value) { this.waiting = value; return this; }
        public Builder runningPrefill(int value) { this.runningPrefill = value; return this; }
        public Builder runningDecode(int value) { this.runningDecode = value; return this; }
        public Builder queuedPrefillTokens(long value) { this.queuedPrefillTokens = value; return this; }
        public Builder queuedPrefillAttention(long value) { this.queuedPrefillAttention = value; return this; }
        public Builder maxRunning(int value) { this.maxRunning = value; return this; }
        public Builder prefixHitRate(double value) { this.prefixHitRate = value; return this; }
        public Builder tokensPerSecond(double value) { this.tokensPerSecond = value; return this; }
        public Builder status(WorkerHealth value) { this.status = value; return this; }
        public Builder observedAtMs(long value) { this.observedAtMs = value; return this; }
        public Builder rateLimitedUntilMs(long value) { this.rateLimitedUntilMs = value; return this; }
        public Builder pool(String value) { this.pool = value; return this; }
        public Builder observed(ObservedWork value) { this.observed = value; return this; }

        public WorkerSnapshot build() {
            double usage = kvUsage != null ? kvUsage : kvBlocksTotal > 0 ? (double) kvBlocksUsed / kvBlocksTotal : 0.0;
            return new WorkerSnapshot(workerId, region, models, ownedPartitions, kvBlocksTotal, kvBlocksUsed, kvBlockTokens,
                    usage, running, waiting, runningPrefill, runningDecode, queuedPrefillTokens, queuedPrefillAttention, maxRunning,
                    prefixHitRate, tokensPerSecond, status, observedAtMs, rateLimitedUntilMs, pool, observed);
        }
    }
}
