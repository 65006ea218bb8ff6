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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code region-outage}: three regions; us-east (the largest, nearest) stops answering a third of
 * the way in and comes back empty two thirds in, shifting its load onto the others; then the load
 * shifts between regions: eu-bank, bound to eu-west, sends {@value #SHIFT_FACTOR}x its traffic. Some tenants
 * are bound by residency: eu-bank (tenant setting: eu-west only), us-health (its requests: us-east
 * only, so they must wait out the outage) and eu-retail (its requests: eu-west or ap-south).
 * Reports how long new work kept going to the failed region, residency violations (must be 0),
 * lost requests, and TTFT before, during and after the outage.
 */
public final class RegionOutageScenario implements Scenario {
    public static final String NAME = "region-outage";
    public static final String FLEET = "us-east=4@5,eu-west=4@30,ap-south=2@70";
    public static final String FAILED_REGION = "us-east";
    public static final long DURATION_MS = 90_000;
    public static final long OUTAGE_FROM_MS = 30_000;
    public static final long OUTAGE_TO_MS = 60_000;
    static final double FREE_TENANT_RATE = 4.0;
    static final double EU_BANK_RATE = 3.0;
    static final double INTERACTIVE_SHARE = 0.3;
    /** eu-bank's traffic after the outage, as a multiple of before. */
    static final int SHIFT_FACTOR = 3;
    static final int FREE_TENANTS = 9;
    static final ScenarioWorkload.Shape SHAPE = ScenarioWorkload.Shape.TENANT_QUERY;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "region " + FAILED_REGION + " of " + FLEET + " down from " + OUTAGE_FROM_MS / 1000 + " s to " + OUTAGE_TO_MS / 1000
                + " s of " + DURATION_MS / 1000 + " s, then eu-bank (eu-west only) sends " + SHIFT_FACTOR
                + "x; residency-bound tenants eu-bank, us-health, eu-retail";
    }

    static List<ScenarioWorkload.TenantLoad> tenants() {
        List<ScenarioWorkload.TenantLoad> tenants = new ArrayList<>();
        tenants.add(new ScenarioWorkload.TenantLoad("eu-bank", EU_BANK_RATE, INTERACTIVE_SHARE, Set.of()));
        tenants.add(new ScenarioWorkload.TenantLoad("us-health", 1.0, INTERACTIVE_SHARE, Set.of("us-east")));
        tenants.add(new ScenarioWorkload.TenantLoad("eu-retail", 2.0, INTERACTIVE_SHARE, Set.of("eu-west", "ap-south")));
        for (int i = 0; i < FREE_TENANTS; i++) {
            tenants.add(new ScenarioWorkload.TenantLoad("tenant-" + i, FREE_TENANT_RATE, INTERACTIVE_SHARE, Set.of()));
        }
        return tenants;
    }

    /** The tenants' traffic, plus eu-bank's extra after the outage (the load shift). */
    static List<TraceRequest> trace(long seed) {
        List<TraceRequest> trace = new ArrayList<>(ScenarioWorkload.generate(tenants(), SHAPE, DURATION_MS, seed));
        List<ScenarioWorkload.TenantLoad> shift = new ArrayList<>(tenants());
        shift.replaceAll(t -> t.tenant().equals("eu-bank")
                ? new ScenarioWorkload.TenantLoad("eu-bank", EU_BANK_RATE * (SHIFT_FACTOR - 1), INTERACTIVE_SHARE, Set.of())
                : new ScenarioWorkload.TenantLoad(t.tenant(), 0, 0, t.pinnedRegions()));
        trace.addAll(ScenarioWorkload.generate(shift, SHAPE, OUTAGE_TO_MS, DURATION_MS, seed));
        trace.sort(java.util.Comparator.comparingLong(TraceRequest::arrivalMs));
        return trace;
    }

    static Conditions conditions(FleetSpec fleet) {
        List<RegionProfile> profiles = fleet.regions().stream()
                .map(r -> new RegionProfile(r.name(), r.delayMs(), 0.0, false)).toList();
        return Conditions.NONE
                .withRegions(new RegionCatalog(profiles, RegionCatalog.DEFAULT_INTERACTIVE_TTFT_TARGET_MS,
                        RegionCatalog.DEFAULT_BATCH_TTFT_TARGET_MS))
                .withTenantRegions(Map.of("eu-bank", Set.of("eu-west")))
                .withOutages(List.of(new Conditions.Outage(FAILED_REGION, OUTAGE_FROM_MS, OUTAGE_TO_MS)));
    }

    @Override
    public ScenarioResult run(long seed) {
        FleetSpec fleet = FleetSpec.parse(FLEET);
        SimConfig config = SimConfig.defaults().withFleet(fleet).withSeed(seed);
        List<TraceRequest> trace = trace(seed);
        RunLog log = Simulator.run(KvAwarePolicy.NAME, trace, config, conditions(fleet), SimulationObserver.NONE).log();

        long lastOnFailed = -1;
        int placedOnFailedDuring = 0;
        Map<String, Map<String, Integer>> perPhase = new LinkedHashMap<>();
        for (String phase : List.of("before", "during", "after")) {
            perPhase.put(phase, new TreeMap<>());
        }
        for (RunLog.PlacementRecord p : log.placements()) {
            String phase = phase(p.atMs());
            perPhase.get(phase).merge(p.region(), 1, Integer::sum);
            if (phase.equals("during") && p.region().equals(FAILED_REGION)) {
                placedOnFailedDuring++;
                lastOnFailed = p.atMs();
            }
        }
        long moveOffMs = lastOnFailed < 0 ? 0 : lastOnFailed - OUTAGE_FROM_MS;
        int constrained = 0;
        for (TraceRequest r : trace) {
            if (!r.allowedRegions().isEmpty() || r.tenant().equals("eu-bank")) {
                constrained++;
            }
        }
        Latency before = Figures.ttft(log, i -> phase(trace.get(i).arrivalMs()).equals("before"));
        Latency during = Figures.ttft(log, i -> phase(trace.get(i).arrivalMs()).equals("during"));
        Latency after = Figures.ttft(log, i -> phase(trace.get(i).arrivalMs()).equals("after"));
        Latency duringUnpinned = Figures.ttft(log, i -> phase(trace.get(i).arrivalMs()).equals("during")
                && !trace.get(i).tenant().equals("us-health"));
        Latency euBankBefore = Figures.ttft(log, i -> phase(trace.get(i).arrivalMs()).equals("before")
                && trace.get(i).tenant().equals("eu-bank"));
        Latency euBankAfter = Figures.ttft(log, i -> phase(trace.get(i).arrivalMs()).equals("after")
                && trace.get(i).tenant().equals("eu-bank"));
        Latency pinnedDuring = Figures.ttft(log, i -> phase(trace.get(i).arrivalMs()).equals("during")
                && trace.get(i).tenant().equals("us-health"));

        Map<String, Object> f = new LinkedHashMap<>();
        f.put("requests", trace.size());
        f.put("fleet", FLEET);
        f.put("failed_region", FAILED_REGION);
        f.put("outage_from_ms", OUTAGE_FROM_MS);
        f.put("outage_to_ms", OUTAGE_TO_MS);
        f.put("time_to_move_off_ms", moveOffMs);
        f.put("placed_on_failed_region_during_outage", placedOnFailedDuring);
        f.put("failovers", log.failovers());
        f.put("residency_constrained_requests", constrained);
        f.put("residency_violations", log.residencyViolations());
        f.put("lost", log.lostCount());
        Map<String, Object> ttft = new LinkedHashMap<>();
        ttft.put("before", Figures.latency(before));
        ttft.put("during", Figures.latency(during));
        ttft.put("after", Figures.latency(after));
        ttft.put("during_except_pinned", Figures.latency(duringUnpinned));
        ttft.put("us_health_pinned_during", Figures.latency(pinnedDuring));
        ttft.put("eu_bank_before", Figures.latency(euBankBefore));
        ttft.put("eu_bank_after_shift", Figures.latency(euBankAfter));
        f.put("ttft_ms", ttft);
        f.put("requests_per_region", perPhase);

        List<String> lines = new ArrayList<>();
        lines.add("scenario " + NAME + ": " + description() + ", " + trace.size() + " requests, seed " + seed);
        lines.add(String.format(Locale.ROOT, "time to move new work off %s: %d ms (%d dispatches to it after it failed, %d failovers)",
                FAILED_REGION, moveOffMs, placedOnFailedDuring, log.failovers()));
        lines.add(String.format(Locale.ROOT, "residency violations: %d of %d constrained requests; lost: %d",
                log.residencyViolations(), constrained, log.lostCount()));
        lines.add("TTFT before " + Figures.ms(before) + "; during " + Figures.ms(during) + "; after " + Figures.ms(after));
        lines.add("during, except us-health " + Figures.ms(duringUnpinned) + "; us-health (pinned to " + FAILED_REGION
                + ", waits for it) " + Figures.ms(pinnedDuring));
        lines.add("load shift: eu-bank (eu-west only) TTFT before " + Figures.ms(euBankBefore) + ", after its traffic x"
                + SHIFT_FACTOR + " " + Figures.ms(euBankAfter));
        lines.add("dispatches per region: " + perPhase);
        return new ScenarioResult(NAME, description(), f, lines);
    }

    private static String phase(long atMs) {
        return atMs < OUTAGE_FROM_MS ? "before" : atMs < OUTAGE_TO_MS ? "during" : "after";
    }
}
