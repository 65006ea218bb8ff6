package io.kvroute.bench.scenario;

import io.kvroute.bench.sim.Conditions;
import io.kvroute.bench.sim.FleetSpec;
import io.kvroute.bench.sim.Latency;
import io.kvroute.bench.sim.RunLog;
import io.kvroute.bench.sim.SimConfig;
import io.kvroute.bench.sim.SimulationObserver;
import io.kvroute.bench.sim.Simulator;
import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.router.routing.KvAwarePolicy;
import io.kvroute.router.routing.RegionCatalog;
import io.kvroute.router.routing.RegionProfile;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code provider-429}: an external provider region, the cheapest, takes most of the work while it
 * meets each request's TTFT target; for a while its pool answers every request with 429 and a
 * Retry-After. The router cools the whole pool for the advertised time on each 429, sends the
 * refused requests and new work to the dearer GPU regions, and tries the provider again when the
 * cool-down ends. Run twice, with and without the 429 window. Reports requests lost (must be 0),
 * 429 answers, time in cool-down, and the latency the 429s added.
 */
public final class Provider429Scenario implements Scenario {
    public static final String NAME = "provider-429";
    public static final String FLEET = "us-east=4@5,eu-west=2@40,provider=4@60";
    public static final String PROVIDER = "provider";
    public static final long DURATION_MS = 60_000;
    public static final long LIMITED_FROM_MS = 20_000;
    public static final long LIMITED_TO_MS = 40_000;
    public static final long RETRY_AFTER_MS = 2_000;
    static final int TENANTS = 8;
    static final double TENANT_RATE = 4.0;
    static final double INTERACTIVE_SHARE = 0.3;
    static final ScenarioWorkload.Shape SHAPE = ScenarioWorkload.Shape.TENANT_QUERY;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "region " + PROVIDER + " of " + FLEET + " (cheapest, one rate-limited pool) answers 429 with Retry-After "
                + RETRY_AFTER_MS + " ms from " + LIMITED_FROM_MS / 1000 + " s to " + LIMITED_TO_MS / 1000 + " s of "
                + DURATION_MS / 1000 + " s";
    }

    static RegionCatalog catalog(FleetSpec fleet) {
        Map<String, Double> price = Map.of("us-east", 0.30, "eu-west", 0.25, PROVIDER, 0.10);
        List<RegionProfile> profiles = fleet.regions().stream()
                .map(r -> new RegionProfile(r.name(), r.delayMs(), price.getOrDefault(r.name(), 0.0), r.name().equals(PROVIDER)))
                .toList();
        return new RegionCatalog(profiles, RegionCatalog.DEFAULT_INTERACTIVE_TTFT_TARGET_MS, RegionCatalog.DEFAULT_BATCH_TTFT_TARGET_MS);
    }

    static Conditions conditions(FleetSpec fleet, boolean limited) {
        Conditions c = Conditions.NONE.withRegions(catalog(fleet));
        return limited
                ? c.withRateLimits(List.of(new Conditions.RateLimitWindow(PROVIDER, LIMITED_FROM_MS, LIMITED_TO_MS, RETRY_AFTER_MS)))
                : c;
    }

    static List<ScenarioWorkload.TenantLoad> tenants() {
        List<ScenarioWorkload.TenantLoad> tenants = new ArrayList<>();
        for (int i = 0; i < TENANTS; i++) {
            tenants.add(new ScenarioWorkload.TenantLoad("tenant-" + i, TENANT_RATE, INTERACTIVE_SHARE, java.util.Set.of()));
        }
        return tenants;
    }

    @Override
    public ScenarioResult run(long seed) {
        FleetSpec fleet = FleetSpec.parse(FLEET);
        SimConfig config = SimConfig.defaults().withFleet(fleet).withSeed(seed);
        List<TraceRequest> trace = ScenarioWorkload.generate(tenants(), SHAPE, DURATION_MS, seed);
        RunLog limited = Simulator.run(KvAwarePolicy.NAME, trace, config, conditions(fleet, true), SimulationObserver.NONE).log();
        RunLog calm = Simulator.run(KvAwarePolicy.NAME, trace, config, conditions(fleet, false), SimulationObserver.NONE).log();

        int retried = 0;
        long[] extra = new long[trace.size()];
        int n = 0;
        for (int i = 0; i < trace.size(); i++) {
            if (limited.attempts()[i] > 1) {
                retried++;
                if (limited.ttftMs(i) >= 0 && calm.ttftMs(i) >= 0) {
                    extra[n++] = limited.ttftMs(i) - calm.ttftMs(i);
                }
            }
        }
        Latency extraRetried = Latency.of(Arrays.copyOf(extra, n));
        Latency withWindow = Figures.ttft(limited, i -> true);
        Latency without = Figures.ttft(calm, i -> true);
        Latency windowWith = Figures.ttft(limited, i -> inWindow(trace.get(i)));
        Latency windowWithout = Figures.ttft(calm, i -> inWindow(trace.get(i)));
        long cooldownMs = limited.cooldownMsByRegion().getOrDefault(PROVIDER, 0L);

        Map<String, Object> f = new LinkedHashMap<>();
        f.put("requests", trace.size());
        f.put("fleet", FLEET);
        f.put("lost", limited.lostCount());
        f.put("rate_limited_answers", limited.rateLimitedAnswers());
        f.put("requests_retried", retried);
        f.put("cooldown_ms", cooldownMs);
        f.put("rate_limited_window_ms", LIMITED_TO_MS - LIMITED_FROM_MS);
        f.put("residency_violations", limited.residencyViolations());
        Map<String, Object> ttft = new LinkedHashMap<>();
        ttft.put("with_429", Figures.latency(withWindow));
        ttft.put("without_429", Figures.latency(without));
        ttft.put("arrivals_in_window_with_429", Figures.latency(windowWith));
        ttft.put("arrivals_in_window_without_429", Figures.latency(windowWithout));
        ttft.put("extra_for_retried_requests", Figures.latency(extraRetried));
        f.put("ttft_ms", ttft);
        f.put("dispatches_per_region_with_429", perRegion(limited));
        f.put("dispatches_per_region_without_429", perRegion(calm));

        List<String> lines = new ArrayList<>();
        lines.add("scenario " + NAME + ": " + description() + ", " + trace.size() + " requests, seed " + seed);
        lines.add(String.format(Locale.ROOT, "lost: %d; 429 answers: %d; requests retried elsewhere: %d; %s cooling down %d ms of the %d ms window",
                limited.lostCount(), limited.rateLimitedAnswers(), retried, PROVIDER, cooldownMs, LIMITED_TO_MS - LIMITED_FROM_MS));
        lines.add("TTFT all requests: with 429s " + Figures.ms(withWindow) + ", without " + Figures.ms(without));
        lines.add("TTFT arrivals in the window: with 429s " + Figures.ms(windowWith) + ", without " + Figures.ms(windowWithout));
        lines.add("extra TTFT of retried requests: " + Figures.ms(extraRetried));
        lines.add("dispatches per region: with 429s " + perRegion(limited) + ", without " + perRegion(calm));
        return new ScenarioResult(NAME, description(), f, lines);
    }

    private static boolean inWindow(TraceRequest r) {
        return r.arrivalMs() >= LIMITED_FROM_MS && r.arrivalMs() < LIMITED_TO_MS;
    }

    private static Map<String, Integer> perRegion(RunLog log) {
        Map<String, Integer> counts = new TreeMap<>();
        log.placements().forEach(p -> counts.merge(p.region(), 1, Integer::sum));
        return counts;
    }
}
