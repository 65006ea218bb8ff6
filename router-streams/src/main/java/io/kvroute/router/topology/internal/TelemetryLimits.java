package io.kvroute.router.topology.internal;

import io.kvroute.router.config.RouterConfig;

/**
 * What the router accepts from a telemetry record beyond its own consistency. Telemetry is written
 * by workers the router does not control (or by anyone who can write the topic), so its times are
 * bounded by the router's clock and its sizes by what a real server and the dispatch topics can be.
 *
 * @param maxClockSkewMs  a record observed more than this ahead of the router's clock is refused
 * @param maxRateLimitMs  a reported {@code rateLimitedUntilMs} counts at most this far past the record's arrival
 * @param maxPartitions   a record owning a partition at or past this is refused (no dispatch topic has it)
 */
public record TelemetryLimits(long maxClockSkewMs, long maxRateLimitMs, int maxPartitions, int maxWorkers) {
    /** Requests one server holds at once, in any queue: far past any real server's batch and queue. */
    public static final int MAX_REQUESTS = 1_000_000;
    /** Tokens one server holds in any queue: a million requests of a million tokens. */
    public static final long MAX_TOKENS = 1_000_000_000_000L;
    /** Token pairs of queued attention work: MAX_TOKENS squared would overflow a long, so the bound is lower. */
    public static final long MAX_TOKEN_PAIRS = 1_000_000_000_000_000_000L;
    /** Generated tokens per second of one server: about a hundred times what a GPU node generates. */
    public static final double MAX_TOKENS_PER_SECOND = 10_000_000;
    /** A latency figure (TTFT, per-token decode) in ms: one day. */
    public static final double MAX_LATENCY_MS = 86_400_000;

    public TelemetryLimits {
        if (maxClockSkewMs < 0 || maxRateLimitMs < 0 || maxPartitions < 1 || maxWorkers < 1) {
            throw new IllegalArgumentException("telemetry limits must be non-negative (and partitions and workers positive): skew "
                    + maxClockSkewMs + ", rate limit " + maxRateLimitMs + ", partitions " + maxPartitions + ", workers " + maxWorkers);
        }
    }

    public static TelemetryLimits defaults() {
        return new TelemetryLimits(RouterConfig.DEFAULT_TELEMETRY_MAX_CLOCK_SKEW_MS, RouterConfig.DEFAULT_TELEMETRY_MAX_RATE_LIMIT_MS,
                RouterConfig.DEFAULT_DISPATCH_MAX_PARTITIONS, RouterConfig.DEFAULT_TELEMETRY_MAX_WORKERS);
    }

    public static TelemetryLimits of(RouterConfig config) {
        return new TelemetryLimits(config.telemetryMaxClockSkewMs(), config.telemetryMaxRateLimitMs(), config.dispatchMaxPartitions(),
                config.telemetryMaxWorkers());
    }
}
