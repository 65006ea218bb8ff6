package io.kvroute.router.topology.internal;

import io.kvroute.router.config.RouterConfig;

/**
 * What the router accepts from a telemetry record beyond its own consistency: how far ahead of the
 * router's clock its observation time may be. Telemetry is written by workers the router does not
 * control (or by anyone who can write the topic), so its times are bounded by the router's clock.
 *
 * @param maxClockSkewMs a record observed more than this ahead of the router's clock is refused
 */
public record TelemetryLimits(long maxClockSkewMs) {
    public TelemetryLimits {
        if (maxClockSkewMs < 0) {
            throw new IllegalArgumentException("maxClockSkewMs " + maxClockSkewMs + " is negative");
        }
    }

    public static TelemetryLimits defaults() {
        return new TelemetryLimits(RouterConfig.DEFAULT_TELEMETRY_MAX_CLOCK_SKEW_MS);
    }

    public static TelemetryLimits of(RouterConfig config) {
        return new TelemetryLimits(config.telemetryMaxClockSkewMs());
    }
}
