package io.kvroute.router.routing;

/** Why a worker was not a candidate for a request. */
public enum Exclusion {
    STALE("stale telemetry"),
    MODEL_NOT_SERVED("model not served"),
    REGION_NOT_ALLOWED("region not allowed"),
    NOT_HEALTHY("draining or down"),
    NO_PARTITIONS("no partition owned"),
    SATURATED("saturated"),
    RATE_LIMITED("rate limited, cooling down"),
    DEGRADED("degraded while healthy workers fit");

    private final String description;

    Exclusion(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }
}
