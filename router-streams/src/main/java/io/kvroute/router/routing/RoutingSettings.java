package io.kvroute.router.routing;

import java.util.Objects;
import java.util.Set;

/**
 * Tunables of candidate filtering and scoring. Defaults model a simulated Llama-3.1-8B on one
 * H100-class GPU (see ENGINE_MODEL.md).
 *
 * @param telemetryTtlMs            telemetry older than this makes a worker no candidate
 * @param knownRegions              regions the router may dispatch to; empty = any
 * @param saturationQueueFactor     a worker with running+waiting+pending >= maxRunning * factor is saturated
 * @param saturationKvUsage         a worker whose KV usage plus pending KV reaches this is saturated
 * @param kvHeadroom                the kvroute policy penalises a placement that would push KV usage past this
 * @param prefillTokensPerSecond    prefill rate assumed for a worker (measured throughput is used only when higher)
 * @param decodeReserveTokens       output tokens counted into a request's KV need at placement
 * @param ledgerGraceMs             pending load placed up to this long before a telemetry snapshot is kept
 *                                  (the worker had not seen it yet when it took the snapshot)
 * @param ledgerMaxAgeMs            pending load older than this is forgotten even without new telemetry
 * @param prefixIndexCapacity       (block, worker) pairs the approximate prefix index keeps
 * @param kvEventIndexCapacity      (block, worker) pairs the KV-event index keeps (stores beyond it are dropped)
 * @param randomSeed                seed of the randomised policies ({@code power-of-two}): same seed, same choices
 * @param candidateSampleSize       when more workers than this are eligible for a request (model, region), the
 *                                  router evaluates the prefix holders plus this many others drawn at random
 *                                  (seeded by the request id) instead of every worker
 * @param candidatePrefixHolders    at most this many workers holding the request's leading blocks are
 *                                  evaluated in a sampled decision (longest matches first)
 * @param engineModel               the step-time model the kvroute policy starts from for every pool of workers, which
 *                                  finished runs then correct ({@link EngineSpeeds}); null to start from nothing and
 *                                  learn
 */
public record RoutingSettings(
        long telemetryTtlMs,
        Set<String> knownRegions,
        double saturationQueueFactor,
        double saturationKvUsage,
        double kvHeadroom,
        double prefillTokensPerSecond,
        int decodeReserveTokens,
        long ledgerGraceMs,
        long ledgerMaxAgeMs,
        int prefixIndexCapacity,
        int kvEventIndexCapacity,
        long randomSeed,
        int candidateSampleSize,
        int candidatePrefixHolders,
        TtftModel engineModel) {

    public static final long DEFAULT_TELEMETRY_TTL_MS = 2_000;
    public static final double DEFAULT_SATURATION_QUEUE_FACTOR = 2.0;
    public static final double DEFAULT_SATURATION_KV_USAGE = 0.98;
    public static final double DEFAULT_KV_HEADROOM = 0.95;
    public static final double DEFAULT_PREFILL_TOKENS_PER_SECOND = 25_000;
    public static final int DEFAULT_DECODE_RESERVE_TOKENS = 256;
    public static final long DEFAULT_LEDGER_GRACE_MS = 100;
    public static final long DEFAULT_LEDGER_MAX_AGE_MS = 10_000;
    public static final int DEFAULT_PREFIX_INDEX_CAPACITY = 1_000_000;
    public static final int DEFAULT_KV_EVENT_INDEX_CAPACITY = 1_000_000;
    public static final long DEFAULT_RANDOM_SEED = 42L;
    /**
     * 32, not more: in the simulator, fleets of 128 and 512 GPUs routed as well with 8 to 32 as with
     * every worker (docs/routing.md, "Large fleets"), and a decision at 1,000 workers costs a third less than with 64.
     * Not fewer: 16 routed 8 % more requests a second at 1,000 GPUs, but moved the p99 from 20 % lower to 14 % higher by seed.
     */
    public static final int DEFAULT_CANDIDATE_SAMPLE_SIZE = 32;
    public static final int DEFAULT_CANDIDATE_PREFIX_HOLDERS = 32;

    public RoutingSettings {
        knownRegions = CanonicalNames.canonical(knownRegions);
        if (candidateSampleSize < 1 || candidatePrefixHolders < 0) {
            throw new IllegalArgumentException("candidateSampleSize must be >= 1 and candidatePrefixHolders >= 0, were "
                    + candidateSampleSize + " and " + candidatePrefixHolders);
        }
    }

    /** Settings with the default candidate sampling, for workers running Llama-3.1-8B on one H100. */
    public RoutingSettings(long telemetryTtlMs, Set<String> knownRegions, double saturationQueueFactor,
                           double saturationKvUsage, double kvHeadroom, double prefillTokensPerSecond,
                           int decodeReserveTokens, long ledgerGraceMs, long ledgerMaxAgeMs, int prefixIndexCapacity,
                           int kvEventIndexCapacity, long randomSeed) {
        this(telemetryTtlMs, knownRegions, saturationQueueFactor, saturationKvUsage, kvHeadroom, prefillTokensPerSecond,
                decodeReserveTokens, ledgerGraceMs, ledgerMaxAgeMs, prefixIndexCapacity, kvEventIndexCapacity, randomSeed,
                DEFAULT_CANDIDATE_SAMPLE_SIZE, DEFAULT_CANDIDATE_PREFIX_HOLDERS, TtftModel.LLAMA_8B_H100);
    }

    public static RoutingSettings defaults() {
        return new RoutingSettings(DEFAULT_TELEMETRY_TTL_MS, Set.of(), DEFAULT_SATURATION_QUEUE_FACTOR,
                DEFAULT_SATURATION_KV_USAGE, DEFAULT_KV_HEADROOM, DEFAULT_PREFILL_TOKENS_PER_SECOND,
                DEFAULT_DECODE_RESERVE_TOKENS, DEFAULT_LEDGER_GRACE_MS, DEFAULT_LEDGER_MAX_AGE_MS,
                DEFAULT_PREFIX_INDEX_CAPACITY, DEFAULT_KV_EVENT_INDEX_CAPACITY, DEFAULT_RANDOM_SEED);
    }

    public RoutingSettings withKnownRegions(Set<String> regions) {
        return new RoutingSettings(telemetryTtlMs, regions, saturationQueueFactor, saturationKvUsage, kvHeadroom,
                prefillTokensPerSecond, decodeReserveTokens, ledgerGraceMs, ledgerMaxAgeMs, prefixIndexCapacity,
                kvEventIndexCapacity, randomSeed, candidateSampleSize, candidatePrefixHolders, engineModel);
    }

    public RoutingSettings withTelemetryTtlMs(long ttlMs) {
        return new RoutingSettings(ttlMs, knownRegions, saturationQueueFactor, saturationKvUsage, kvHeadroom,
                prefillTokensPerSecond, decodeReserveTokens, ledgerGraceMs, ledgerMaxAgeMs, prefixIndexCapacity,
                kvEventIndexCapacity, randomSeed, candidateSampleSize, candidatePrefixHolders, engineModel);
    }

    public RoutingSettings withPrefixIndexCapacity(int capacity) {
        return new RoutingSettings(telemetryTtlMs, knownRegions, saturationQueueFactor, saturationKvUsage, kvHeadroom,
                prefillTokensPerSecond, decodeReserveTokens, ledgerGraceMs, ledgerMaxAgeMs, capacity,
                kvEventIndexCapacity, randomSeed, candidateSampleSize, candidatePrefixHolders, engineModel);
    }

    public RoutingSettings withKvEventIndexCapacity(int capacity) {
        return new RoutingSettings(telemetryTtlMs, knownRegions, saturationQueueFactor, saturationKvUsage, kvHeadroom,
                prefillTokensPerSecond, decodeReserveTokens, ledgerGraceMs, ledgerMaxAgeMs, prefixIndexCapacity,
                capacity, randomSeed, candidateSampleSize, candidatePrefixHolders, engineModel);
    }

    public RoutingSettings withCandidateSampleSize(int size) {
        return new RoutingSettings(telemetryTtlMs, knownRegions, saturationQueueFactor, saturationKvUsage, kvHeadroom,
                prefillTokensPerSecond, decodeReserveTokens, ledgerGraceMs, ledgerMaxAgeMs, prefixIndexCapacity,
                kvEventIndexCapacity, randomSeed, size, candidatePrefixHolders, engineModel);
    }

    public RoutingSettings withRandomSeed(long seed) {
        return new RoutingSettings(telemetryTtlMs, knownRegions, saturationQueueFactor, saturationKvUsage, kvHeadroom,
                prefillTokensPerSecond, decodeReserveTokens, ledgerGraceMs, ledgerMaxAgeMs, prefixIndexCapacity,
                kvEventIndexCapacity, seed, candidateSampleSize, candidatePrefixHolders, engineModel);
    }

    public RoutingSettings withCandidateSampling(int sampleSize, int prefixHolders) {
        return new RoutingSettings(telemetryTtlMs, knownRegions, saturationQueueFactor, saturationKvUsage, kvHeadroom,
                prefillTokensPerSecond, decodeReserveTokens, ledgerGraceMs, ledgerMaxAgeMs, prefixIndexCapacity,
                kvEventIndexCapacity, randomSeed, sampleSize, prefixHolders, engineModel);
    }

    public boolean regionKnown(String region) {
        return knownRegions.isEmpty() || knownRegions.contains(region);
    }

    /** KV blocks a request needs on a worker: its uncached prompt plus a decode reserve. */
    public long kvBlocksNeeded(RouteRequest request, int matchedBlocks, int kvBlockTokens) {
        long tokens = (long) request.uncachedTokens(matchedBlocks) + Math.min(request.maxTokens(), decodeReserveTokens);
        return (tokens + kvBlockTokens - 1) / kvBlockTokens;
    }

    /** Prefill rate assumed for a worker: the configured rate, or its measured throughput if higher. */
    public double prefillRate(WorkerSnapshot worker) {
        return Math.max(prefillTokensPerSecond, worker.tokensPerSecond());
    }

    public RoutingSettings withEngineModel(TtftModel model) {
        return new RoutingSettings(telemetryTtlMs, knownRegions, saturationQueueFactor, saturationKvUsage, kvHeadroom,
                prefillTokensPerSecond, decodeReserveTokens, ledgerGraceMs, ledgerMaxAgeMs, prefixIndexCapacity,
                kvEventIndexCapacity, randomSeed, candidateSampleSize, candidatePrefixHolders, model);
    }
}
