package io.kvroute.router.metrics;

import io.kvroute.platform.metrics.BoundedTagValues;
import io.kvroute.router.routing.EngineSpeed;
import io.kvroute.router.routing.EngineSpeeds;
import io.kvroute.router.routing.FleetView;
import io.kvroute.router.routing.TtftModel;
import io.kvroute.router.routing.WorkerSnapshot;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The router's own meters, names under {@value #PREFIX}. Tags carry regions, policies, tenants and
 * reason kinds only: never request ids or prompt content. Thread-safe (several stream threads
 * and the global thread share one instance).
 */
public final class RouterMetrics {
    public static final String PREFIX = "kvroute.router.";
    public static final String REQUESTS_ROUTED = PREFIX + "requests.routed";
    public static final String REQUESTS_REJECTED = PREFIX + "requests.rejected";
    public static final String REQUESTS_EXPIRED = PREFIX + "requests.expired";
    public static final String REQUESTS_CANCELLED = PREFIX + "requests.cancelled";
    public static final String REQUESTS_DEAD_LETTERED = PREFIX + "requests.dead.lettered";
    public static final String REQUESTS_PARKED = PREFIX + "requests.parked";
    public static final String REQUESTS_REPLACED = PREFIX + "requests.replaced";
    public static final String REQUESTS_HANDED_BACK = PREFIX + "requests.handed.back";
    /** Dispatched requests the router answered FAILED because no result came within the dedup retention. */
    public static final String REQUESTS_FORGOTTEN = PREFIX + "requests.forgotten";
    /** Requests over their tenant's quota, tagged by tenant and action (wait or reject). */
    public static final String REQUESTS_THROTTLED = PREFIX + "requests.throttled";
    /** Tokens of finished requests, tagged by tenant, model, region and kind (prompt, cached, completion). */
    public static final String USAGE_TOKENS = PREFIX + "usage.tokens";
    /** Spend of finished requests at their region's price per million tokens (prompt + completion), by tenant, model, region. */
    public static final String USAGE_SPEND = PREFIX + "usage.spend";
    /** Requests waiting in admission for their tenant's quota to refill. */
    public static final String REQUESTS_QUOTA_WAITING = PREFIX + "requests.quota.waiting";
    /** Regions cooled as one pool after one of their workers reported rate limiting. */
    public static final String REGIONS_COOLED = PREFIX + "regions.cooled";
    public static final String DECISION_LATENCY = PREFIX + "decision.latency";
    public static final String CANDIDATES_CONSIDERED = PREFIX + "candidates.considered";
    public static final String TELEMETRY_AGE = PREFIX + "telemetry.age.ms";
    public static final String TELEMETRY_SKIPPED = PREFIX + "telemetry.skipped";
    public static final String KV_EVENTS_APPLIED = PREFIX + "kv.events.applied";
    public static final String KV_EVENTS_SKIPPED = PREFIX + "kv.events.skipped";
    public static final String WORKERS = PREFIX + "workers";
    /** Per region: workers the router has telemetry of there (fresh or not). */
    public static final String REGION_WORKERS = PREFIX + "region.workers";
    /** Per region: age of the newest telemetry any of its workers sent (NaN while the router knows none of them). */
    public static final String REGION_TELEMETRY_AGE = PREFIX + "region.telemetry.age.ms";
    /** The engine speed learnt per pool: tag {@value #TAG_COEFFICIENT} names the {@code TtftModel} coefficient. */
    public static final String ENGINE_COEFFICIENT = PREFIX + "engine.coefficient";
    public static final String ENGINE_RUNS = PREFIX + "engine.runs.learnt";
    public static final String ENGINE_TTFT_ERROR = PREFIX + "engine.ttft.error.ms";
    public static final String TAG_POOL = "pool";
    public static final String TAG_COEFFICIENT = "coefficient";
    public static final String TAG_OUTCOME = "outcome";
    public static final String TAG_REGION = "region";
    public static final String TAG_POLICY = "policy";
    public static final String TAG_REASON = "reason";
    public static final String TAG_TENANT = "tenant";
    /** Distinct tenant tags before the rest are counted as {@value BoundedTagValues#OTHER}: tenant names come from requests. */
    public static final int MAX_TENANT_TAGS = 1_000;
    public static final String TAG_ACTION = "action";

    private final MeterRegistry registry;
    /** {@link #REQUESTS_ROUTED} by region and policy: both come from the configuration, so few. */
    private final Map<String, Counter> routedCounters = new ConcurrentHashMap<>();
    private final BoundedTagValues tenantTags = new BoundedTagValues(MAX_TENANT_TAGS);
    private final AtomicLong parked = new AtomicLong();
    private final AtomicLong quotaWaiting = new AtomicLong();
    private final Timer decisionLatency;
    private final DistributionSummary candidatesConsidered;
    private final DistributionSummary telemetryAge;
    private final Counter deadLettered;
    private final Counter expired;

    public RouterMetrics(MeterRegistry registry) {
        this.registry = registry;
        Gauge.builder(REQUESTS_PARKED, parked, AtomicLong::get)
                .description("Requests waiting in the router for a worker with room").register(registry);
        Gauge.builder(REQUESTS_QUOTA_WAITING, quotaWaiting, AtomicLong::get)
                .description("Requests waiting in admission for their tenant's quota to refill").register(registry);
        decisionLatency = Timer.builder(DECISION_LATENCY)
                .description("Time to filter candidates and score them for one request")
                .publishPercentiles(0.5, 0.99).register(registry);
        candidatesConsidered = DistributionSummary.builder(CANDIDATES_CONSIDERED)
                .description("Workers that passed the candidate filter for one request").register(registry);
        telemetryAge = DistributionSummary.builder(TELEMETRY_AGE).baseUnit("milliseconds")
                .description("Age of the chosen worker's telemetry when the router placed a request")
                .publishPercentiles(0.5, 0.99).register(registry);
        deadLettered = Counter.builder(REQUESTS_DEAD_LETTERED)
                .description("Undecodable request records sent to the dead-letter topic").register(registry);
        expired = Counter.builder(REQUESTS_EXPIRED)
                .description("Requests whose deadline passed while they waited for capacity").register(registry);
        // registered at zero, as the two above: a rule's increase() misses a counter's first event if it appears with it
        registry.counter(REQUESTS_CANCELLED);
        registry.counter(REQUESTS_FORGOTTEN);
    }

    /** The workers the router has telemetry of, as {@code workers} counts them. */
    public void watchWorkers(Supplier<Number> workers) {
        Gauge.builder(WORKERS, workers).description("Workers the router has telemetry of (candidates or not)").register(registry);
    }

    /**
     * Per region of {@code regions}, how many workers the router knows there and how old the newest telemetry from any
     * of them is, read from {@code fleet} at each scrape: a region whose newest telemetry keeps ageing is silent. Also
     * registers each region's re-placement counter at zero, so a rule's {@code increase()} sees the first re-placement.
     */
    public void watchRegions(Collection<String> regions, FleetView fleet) {
        watchRegions(regions, fleet, System::currentTimeMillis);
    }

    /** As {@link #watchRegions(Collection, FleetView)}, ages taken against {@code clock} (epoch ms). */
    public void watchRegions(Collection<String> regions, FleetView fleet, LongSupplier clock) {
        for (String region : regions) {
            Gauge.builder(REGION_WORKERS, fleet, f -> f.all().stream().filter(w -> w.region().equals(region)).count())
                    .tag(TAG_REGION, region).strongReference(true)
                    .description("Workers of the region the router has telemetry of").register(registry);
            Gauge.builder(REGION_TELEMETRY_AGE, fleet, f -> newestTelemetryAgeMs(f, region, clock.getAsLong()))
                    .tag(TAG_REGION, region).strongReference(true)
                    .description("Age of the newest telemetry from any worker of the region").register(registry);
            registry.counter(REQUESTS_REPLACED, TAG_REGION, region);
        }
    }

    private static double newestTelemetryAgeMs(FleetView fleet, String region, long nowMs) {
        long newest = Long.MIN_VALUE;
        for (WorkerSnapshot worker : fleet.all()) {
            if (worker.region().equals(region)) {
                newest = Math.max(newest, worker.observedAtMs());
            }
        }
        return newest == Long.MIN_VALUE ? Double.NaN : Math.max(0, nowMs - newest);
    }

    /**
     * Each pool's learnt engine speed, registered when its first run is learnt: its coefficients (ms per step, per
     * prefilled token, per attention pair, per decoding sequence, per context token), the runs learnt from, and how far
     * off its TTFT fit runs.
     */
    public void watchEngineSpeeds(EngineSpeeds speeds) {
        speeds.onNewPool(pool -> {
            EngineSpeed speed = speeds.pools().get(pool);
            coefficient(pool, "step_ms", speed, m -> m.t0Ms());
            coefficient(pool, "prefill_ms_per_token", speed, m -> m.aMsPerToken());
            coefficient(pool, "attention_ms_per_token_pair", speed, m -> m.kMsPerTokenPair());
            coefficient(pool, "decode_ms_per_sequence", speed, m -> m.bMsPerSequence());
            coefficient(pool, "decode_ms_per_context_token", speed, m -> m.vMsPerContextToken());
            Gauge.builder(ENGINE_RUNS, speed, EngineSpeed::observations).tag(TAG_POOL, pool)
                    .description("finished runs the router learnt this pool's speed from").register(registry);
            Gauge.builder(ENGINE_TTFT_ERROR, speed, EngineSpeed::meanAbsErrorMs).tag(TAG_POOL, pool)
                    .description("mean absolute error of the learnt TTFT fit, ms").register(registry);
        });
    }

    private void coefficient(String pool, String name, EngineSpeed speed, ToDoubleFunction<TtftModel> value) {
        Gauge.builder(ENGINE_COEFFICIENT, speed, s -> value.applyAsDouble(s.current()))
                .tags(TAG_POOL, pool, TAG_COEFFICIENT, name)
                .description("the engine speed the router learnt for the pool").register(registry);
    }

    /** Metrics into a private registry nobody reads; for tests and tools. */
    public static RouterMetrics noop() {
        return new RouterMetrics(new SimpleMeterRegistry());
    }

    public MeterRegistry registry() {
        return registry;
    }

    public void routed(String region, String policy) {
        // once per routed request: a registry lookup builds an id and its tags each time, so keep the counters
        routedCounters.computeIfAbsent(region + '\n' + policy,
                k -> registry.counter(REQUESTS_ROUTED, TAG_REGION, region, TAG_POLICY, policy)).increment();
    }

    public void rejected(String reasonKind) {
        registry.counter(REQUESTS_REJECTED, TAG_REASON, reasonKind).increment();
    }

    public void expired() {
        expired.increment();
    }

    /** A request answered CANCELLED by the router (cancelled before it was dispatched). */
    public void cancelled() {
        registry.counter(REQUESTS_CANCELLED).increment();
    }

    /** A dispatched request placed again because its region ({@code fromRegion}) went silent. */
    public void replaced(String fromRegion) {
        registry.counter(REQUESTS_REPLACED, TAG_REGION, fromRegion).increment();
    }

    /** A worker of {@code region} handed a rate-limited run back; {@code outcome}: placed, parked or failed. */
    public void handedBack(String region, String outcome) {
        registry.counter(REQUESTS_HANDED_BACK, TAG_REGION, region, "outcome", outcome).increment();
    }

    /** A dispatched request whose result never came: answered FAILED, no longer tracked. */
    public void forgotten() {
        registry.counter(REQUESTS_FORGOTTEN).increment();
    }

    /**
     * A finished request's use, counted once when its result ends its dispatch: tokens by kind and spend at
     * {@code pricePerMillionTokens} (prompt + completion). Tenant tags are bounded ({@link #MAX_TENANT_TAGS}).
     */
    public void used(String tenant, String model, String region, long promptTokens, long cachedTokens, long completionTokens,
                     double pricePerMillionTokens) {
        String t = tenantTags.of(tenant);
        String m = model == null ? "" : model;
        String r = region == null ? "" : region;
        registry.counter(USAGE_TOKENS, TAG_TENANT, t, "model", m, TAG_REGION, r, "kind", "prompt").increment(promptTokens);
        registry.counter(USAGE_TOKENS, TAG_TENANT, t, "model", m, TAG_REGION, r, "kind", "cached").increment(cachedTokens);
        registry.counter(USAGE_TOKENS, TAG_TENANT, t, "model", m, TAG_REGION, r, "kind", "completion").increment(completionTokens);
        registry.counter(USAGE_SPEND, TAG_TENANT, t, "model", m, TAG_REGION, r)
                .increment((promptTokens + completionTokens) * pricePerMillionTokens / 1e6);
    }

    /** A request over its tenant's quota; {@code action} is wait or reject. Tenant names are tags, never prompts. */
    public void throttled(String tenant, String action) {
        registry.counter(REQUESTS_THROTTLED, TAG_TENANT, tenantTags.of(tenant), TAG_ACTION, action).increment();
    }

    public void quotaWaitingChanged(long delta) {
        quotaWaiting.addAndGet(delta);
    }

    public long quotaWaiting() {
        return quotaWaiting.get();
    }

    /** A shared-pool region cooled because one of its workers reported rate limiting. */
    public void regionCooled(String region) {
        registry.counter(REGIONS_COOLED, TAG_REGION, region).increment();
    }

    public void deadLettered() {
        deadLettered.increment();
    }

    public void parkedChanged(long delta) {
        parked.addAndGet(delta);
    }

    public long parked() {
        return parked.get();
    }

    public void decisionTook(Duration duration) {
        decisionLatency.record(duration);
    }

    public void candidatesConsidered(int count) {
        candidatesConsidered.record(count);
    }

    public void telemetryAge(long ageMs) {
        telemetryAge.record(Math.max(0, ageMs));
    }

    public void telemetrySkipped(String reasonKind) {
        registry.counter(TELEMETRY_SKIPPED, TAG_REASON, reasonKind).increment();
    }

    /** A KV event applied to the index; {@code outcome} is applied, cleared or reset_after_gap. */
    public void kvEventApplied(String outcome) {
        registry.counter(KV_EVENTS_APPLIED, TAG_OUTCOME, outcome).increment();
    }

    public void kvEventSkipped(String reasonKind) {
        registry.counter(KV_EVENTS_SKIPPED, TAG_REASON, reasonKind).increment();
    }
}
