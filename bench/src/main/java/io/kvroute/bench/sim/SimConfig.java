package io.kvroute.bench.sim;

import io.kvroute.router.routing.RoutingSettings;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Everything a simulation run depends on besides the trace and the policy. Immutable; change a
 * field with its {@code withXxx} method. Defaults are public constants.
 *
 * @param fleet               regions, GPUs per region and their one-way delays, and each pool's engine if it names one
 * @param engine              the simulated GPU (step-time model and scheduler limits) of pools that name none; its
 *                            variants (KV pool, host tier, KV events) apply to every pool ({@link #engineOf}), and the
 *                            router's TTFT model is this engine's
 * @param dispatchLatencyMs   decision to the worker consuming the dispatch record (Kafka EOS commit + poll)
 * @param telemetryIntervalMs a worker publishes telemetry (and KV events) at least this often
 * @param sloMs               TTFT service-level objective for goodput
 * @param seed                seeds the randomised policies and the workers' telemetry phases
 * @param parkRetryMs         the router retries parked requests (no candidate) this often
 * @param parkedMaxMs         a request parked this long is rejected (NO_CAPACITY)
 * @param routing             routing tunables; its seed is replaced by {@code seed} and its regions by the fleet's
 * @param routers             router instances: each routes the requests of its own requests partitions, with its own
 *                            state, and (unless {@link Routers#isolated}) follows the others' decisions once
 *                            they are committed (after the dispatch latency)
 * @param telemetry           what the workers tell the router ({@link TelemetryMode#OBSERVABLE} unless asked); the
 *                            router's engine prior is {@code routing}'s engine model (null: it starts from nothing)
 */
public record SimConfig(FleetSpec fleet, EngineProfile engine, long dispatchLatencyMs, long telemetryIntervalMs,
                        long sloMs, long seed, long parkRetryMs, long parkedMaxMs, RoutingSettings routing, Routers routers,
                        TelemetryMode telemetry) {
    public static final long DEFAULT_DISPATCH_LATENCY_MS = 20;
    public static final long DEFAULT_TELEMETRY_INTERVAL_MS = 250;
    public static final long DEFAULT_SLO_MS = 2_000;
    public static final long DEFAULT_SEED = 42;
    public static final long DEFAULT_PARK_RETRY_MS = 50;
    public static final long DEFAULT_PARKED_MAX_MS = 600_000;
    /** The model every simulated worker serves and every simulated request asks for. */
    public static final String MODEL = "llama-3.1-8b";

    public SimConfig {
        Objects.requireNonNull(fleet, "fleet");
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(routing, "routing");
        Objects.requireNonNull(routers, "routers");
        Objects.requireNonNull(telemetry, "telemetry");
        if (dispatchLatencyMs < 0) {
            throw new IllegalArgumentException("dispatch latency must not be negative, was " + dispatchLatencyMs);
        }
        if (telemetryIntervalMs < 1) {
            throw new IllegalArgumentException("telemetry interval must be at least 1 ms, was " + telemetryIntervalMs);
        }
        if (sloMs < 1) {
            throw new IllegalArgumentException("SLO must be at least 1 ms, was " + sloMs);
        }
        if (parkRetryMs < 1 || parkedMaxMs < 1) {
            throw new IllegalArgumentException("park retry and max must be at least 1 ms, were " + parkRetryMs + " and " + parkedMaxMs);
        }
        routing = routing.withRandomSeed(seed)
                .withKnownRegions(fleet.regions().stream().map(FleetSpec.Region::name).collect(Collectors.toSet()));
    }

    public static SimConfig defaults() {
        return new SimConfig(FleetSpec.defaults(), EngineProfile.LLAMA_8B_H100, DEFAULT_DISPATCH_LATENCY_MS,
                DEFAULT_TELEMETRY_INTERVAL_MS, DEFAULT_SLO_MS, DEFAULT_SEED, DEFAULT_PARK_RETRY_MS, DEFAULT_PARKED_MAX_MS,
                RoutingSettings.defaults().withEngineModel(null), Routers.ONE, TelemetryMode.OBSERVABLE);
    }

    /** The engine a pool's GPUs run: the one it names, with the run engine's variants, or the run's engine. */
    public EngineProfile engineOf(FleetSpec.Pool pool) {
        return pool.engine() == null ? engine : EngineProfile.named(pool.engine()).withVariantsOf(engine);
    }

    public SimConfig withFleet(FleetSpec value) {
        return new SimConfig(value, engine, dispatchLatencyMs, telemetryIntervalMs, sloMs, seed, parkRetryMs, parkedMaxMs, routing, routers, telemetry);
    }

    public SimConfig withEngine(EngineProfile value) {
        return new SimConfig(fleet, value, dispatchLatencyMs, telemetryIntervalMs, sloMs, seed, parkRetryMs, parkedMaxMs, routing, routers, telemetry);
    }

    public SimConfig withDispatchLatencyMs(long value) {
        return new SimConfig(fleet, engine, value, telemetryIntervalMs, sloMs, seed, parkRetryMs, parkedMaxMs, routing, routers, telemetry);
    }

    public SimConfig withTelemetryIntervalMs(long value) {
        return new SimConfig(fleet, engine, dispatchLatencyMs, value, sloMs, seed, parkRetryMs, parkedMaxMs, routing, routers, telemetry);
    }

    public SimConfig withSloMs(long value) {
        return new SimConfig(fleet, engine, dispatchLatencyMs, telemetryIntervalMs, value, seed, parkRetryMs, parkedMaxMs, routing, routers, telemetry);
    }

    public SimConfig withSeed(long value) {
        return new SimConfig(fleet, engine, dispatchLatencyMs, telemetryIntervalMs, sloMs, value, parkRetryMs, parkedMaxMs, routing, routers, telemetry);
    }

    public SimConfig withRouting(RoutingSettings value) {
        return new SimConfig(fleet, engine, dispatchLatencyMs, telemetryIntervalMs, sloMs, seed, parkRetryMs, parkedMaxMs, value, routers, telemetry);
    }

    public SimConfig withTelemetry(TelemetryMode value) {
        return new SimConfig(fleet, engine, dispatchLatencyMs, telemetryIntervalMs, sloMs, seed, parkRetryMs, parkedMaxMs, routing, routers, value);
    }

    public SimConfig withRouters(Routers value) {
        return new SimConfig(fleet, engine, dispatchLatencyMs, telemetryIntervalMs, sloMs, seed, parkRetryMs, parkedMaxMs, routing, value, telemetry);
    }

    /**
     * How many router instances share the requests, and whether each follows the others' decisions
     * ({@code isolated}: each knows only its own placements, as before the router followed its peers).
     */
    public record Routers(int instances, boolean isolated) {
        public static final Routers ONE = new Routers(1, false);

        public Routers {
            if (instances < 1) {
                throw new IllegalArgumentException("router instances must be at least 1, was " + instances);
            }
        }
    }
}
