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
import io.kvroute.router.routing.RoutingSettings;
import io.kvroute.router.routing.quota.OverQuota;
import io.kvroute.router.routing.quota.QuotaLimits;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code noisy-neighbour}: on the default fleet, tenant {@value #NOISY} sends 10x the load of each
 * of four others, and together they ask for more than the fleet serves, so requests wait at the
 * router. A sixth tenant, {@value #CAPPED}, is held to a tokens-per-minute quota below its demand
 * (its excess WAITs). Run twice: the router's queue in arrival order (FIFO) and fair (VTC).
 * Reports each tenant's TTFT p99 and Jain's index of the tokens served to the tenants within quota
 * against their max-min fair shares, over the arrival window.
 *
 * <p>The router holds the backlog (at most {@value #IN_FLIGHT_PER_GPU} requests in flight per GPU,
 * via the saturation queue factor) so that its queue, not each engine's FIFO, decides the order.
 */
public final class NoisyNeighbourScenario implements Scenario {
    public static final String NAME = "noisy-neighbour";
    public static final String NOISY = "noisy";
    public static final String CAPPED = "capped";
    public static final long DURATION_MS = 60_000;
    static final int QUIET_TENANTS = 4;
    static final double QUIET_RATE = 10.0;
    static final double NOISY_FACTOR = 10.0;
    static final int IN_FLIGHT_PER_GPU = 32;
    /** The capped tenant's quota: under a third of the ~1.9M tokens per minute it asks for. */
    static final long CAPPED_TOKENS_PER_MINUTE = 600_000;
    static final ScenarioWorkload.Shape SHAPE = ScenarioWorkload.Shape.TENANT_QUERY;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "tenant " + NOISY + " sends " + (int) NOISY_FACTOR + "x the load of each of " + QUIET_TENANTS + " others for "
                + DURATION_MS / 1000 + " s on " + FleetSpec.DEFAULT + "; tenant " + CAPPED + " over its quota; FIFO vs fair queue";
    }

    static List<ScenarioWorkload.TenantLoad> tenants() {
        List<ScenarioWorkload.TenantLoad> tenants = new ArrayList<>();
        tenants.add(ScenarioWorkload.TenantLoad.of(NOISY, QUIET_RATE * NOISY_FACTOR));
        for (int i = 0; i < QUIET_TENANTS; i++) {
            tenants.add(ScenarioWorkload.TenantLoad.of("quiet-" + i, QUIET_RATE));
        }
        tenants.add(ScenarioWorkload.TenantLoad.of(CAPPED, QUIET_RATE));
        return tenants;
    }

    static SimConfig config(long seed) {
        RoutingSettings d = RoutingSettings.defaults();
        double factor = (double) IN_FLIGHT_PER_GPU / SimConfig.defaults().engine().limits().maxRunning();
        RoutingSettings routing = new RoutingSettings(d.telemetryTtlMs(), d.knownRegions(), factor, d.saturationKvUsage(),
                d.kvHeadroom(), d.prefillTokensPerSecond(), d.decodeReserveTokens(), d.ledgerGraceMs(), d.ledgerMaxAgeMs(),
                d.prefixIndexCapacity(), d.kvEventIndexCapacity(), d.randomSeed(), d.candidateSampleSize(),
                d.candidatePrefixHolders(), d.engineModel());
        return SimConfig.defaults().withSeed(seed).withRouting(routing);
    }

    static Conditions conditions(Conditions.RouterQueue queue) {
        return Conditions.NONE.withQueue(queue)
                .withQuotas(Map.of(CAPPED, new QuotaLimits(QuotaLimits.UNLIMITED, CAPPED_TOKENS_PER_MINUTE, OverQuota.WAIT)));
    }

    /** One run's per-tenant figures and fairness. */
    record Run(RunLog log, Map<String, Object> perTenant, double jain, Latency quietTtft) {
    }

    static Run run(List<TraceRequest> trace, SimConfig config, Conditions.RouterQueue queue) {
        RunLog log = Simulator.run(KvAwarePolicy.NAME, trace, config, conditions(queue), SimulationObserver.NONE).log();
        List<String> names = tenants().stream().map(ScenarioWorkload.TenantLoad::tenant).toList();
        List<String> withinQuota = names.stream().filter(t -> !t.equals(CAPPED)).toList();
        double[] demand = new double[withinQuota.size()];
        double[] served = new double[withinQuota.size()];
        Map<String, Object> perTenant = new LinkedHashMap<>();
        for (String tenant : names) {
            Latency ttft = Figures.ttft(log, i -> trace.get(i).tenant().equals(tenant));
            long tenantDemand = 0;
            long tenantServed = 0;
            for (int i = 0; i < trace.size(); i++) {
                TraceRequest r = trace.get(i);
                if (r.tenant().equals(tenant)) {
                    long tokens = (long) r.inputTokens() + r.outputTokens();
                    tenantDemand += tokens;
                    if (log.doneAtMs()[i] >= 0 && log.doneAtMs()[i] < DURATION_MS) {
                        tenantServed += tokens;
                    }
                }
            }
            int k = withinQuota.indexOf(tenant);
            if (k >= 0) {
                demand[k] = tenantDemand;
                served[k] = tenantServed;
            }
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("ttft_ms", Figures.latency(ttft));
            t.put("demand_tokens", tenantDemand);
            t.put("served_tokens_in_window", tenantServed);
            t.put("within_quota", k >= 0);
            perTenant.put(tenant, t);
        }
        Latency quiet = Figures.ttft(log, i -> trace.get(i).tenant().startsWith("quiet-"));
        return new Run(log, perTenant, Fairness.jainAgainstFairShare(served, demand), quiet);
    }

    @Override
    public ScenarioResult run(long seed) {
        SimConfig config = config(seed);
        List<TraceRequest> trace = ScenarioWorkload.generate(tenants(), SHAPE, DURATION_MS, seed);
        Run fair = run(trace, config, Conditions.RouterQueue.FAIR);
        Run fifo = run(trace, config, Conditions.RouterQueue.FIFO);

        Map<String, Object> f = new LinkedHashMap<>();
        f.put("requests", trace.size());
        f.put("fleet", FleetSpec.DEFAULT);
        f.put("in_flight_per_gpu", IN_FLIGHT_PER_GPU);
        f.put("jain_fair", Figures.round(fair.jain(), 4));
        f.put("jain_fifo", Figures.round(fifo.jain(), 4));
        f.put("lost_fair", fair.log().lostCount());
        f.put("lost_fifo", fifo.log().lostCount());
        f.put("quota_waits_fair", fair.log().quotaWaits());
        f.put("quota_rejected_fair", fair.log().quotaRejected());
        f.put("quiet_ttft_p99_fair_ms", fair.quietTtft().p99());
        f.put("quiet_ttft_p99_fifo_ms", fifo.quietTtft().p99());
        f.put("tenants_fair", fair.perTenant());
        f.put("tenants_fifo", fifo.perTenant());

        List<String> lines = new ArrayList<>();
        lines.add("scenario " + NAME + ": " + description() + ", " + trace.size() + " requests, seed " + seed);
        lines.add(String.format(Locale.ROOT, "%-10s %16s %16s %14s %14s", "tenant", "ttft_p99 fair", "ttft_p99 fifo",
                "served fair", "served fifo"));
        for (String tenant : fair.perTenant().keySet()) {
            lines.add(String.format(Locale.ROOT, "%-10s %16.0f %16.0f %14s %14s", tenant, p99(fair, tenant), p99(fifo, tenant),
                    servedShare(fair, tenant), servedShare(fifo, tenant)));
        }
        lines.add(String.format(Locale.ROOT, "Jain's index of served tokens vs max-min fair share (tenants within quota): fair %.3f, "
                + "FIFO %.3f; lost: fair %d, FIFO %d; requests of %s that waited for quota: %d", fair.jain(), fifo.jain(), fair.log().lostCount(),
                fifo.log().lostCount(), CAPPED, fair.log().quotaWaits()));
        return new ScenarioResult(NAME, description(), f, lines);
    }

    @SuppressWarnings("unchecked")
    private static double p99(Run run, String tenant) {
        Map<String, Object> t = (Map<String, Object>) run.perTenant().get(tenant);
        return (double) ((Map<String, Object>) t.get("ttft_ms")).get("p99");
    }

    @SuppressWarnings("unchecked")
    private static String servedShare(Run run, String tenant) {
        Map<String, Object> t = (Map<String, Object>) run.perTenant().get(tenant);
        long demand = (long) t.get("demand_tokens");
        long served = (long) t.get("served_tokens_in_window");
        return String.format(Locale.ROOT, "%.0f%%", demand == 0 ? 0.0 : 100.0 * served / demand);
    }
}
