package io.kvroute.router.routing;

import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Data residency as a hard constraint: a request may run only in a region both it and its tenant
 * allow (an empty set allows any region). {@link #constrain} narrows the request once, before its
 * first decision; every later decision (spill-over, failover, retry) routes the narrowed request,
 * and {@link CandidateFilter} never lets a worker outside it be a candidate.
 */
public final class Residency {
    private static final Residency NONE = new Residency(Map.of());
    /** The notation {@link #parse} reads, e.g. for a {@code router.tenant.regions} setting. */
    public static final String EXAMPLE = "eu-bank=eu-west|eu-central,us-health=us-east";

    private final Map<String, Set<String>> tenantRegions = new TreeMap<>();

    /** @param tenantRegions allowed regions per tenant; a tenant absent (or with an empty set) may use any */
    public Residency(Map<String, Set<String>> tenantRegions) {
        tenantRegions.forEach((tenant, regions) -> this.tenantRegions.put(tenant, Set.copyOf(regions)));
    }

    public static Residency none() {
        return NONE;
    }

    /** Parses {@code tenant=region|region,...} (see {@link #EXAMPLE}); a malformed part fails naming it. */
    public static Residency parse(String spec) {
        Map<String, Set<String>> tenants = new TreeMap<>();
        if (spec == null || spec.isBlank()) {
            return new Residency(tenants);
        }
        for (String part : spec.split(",")) {
            String p = part.trim();
            int eq = p.indexOf('=');
            if (eq <= 0 || eq == p.length() - 1 || tenants.containsKey(p.substring(0, eq))) {
                throw new IllegalArgumentException("tenant regions '" + p + "' is not tenant=region|region, or names its tenant twice (e.g. "
                        + EXAMPLE + ")");
            }
            Set<String> regions = new TreeSet<>();
            for (String region : p.substring(eq + 1).split("\\|")) {
                if (region.isBlank()) {
                    throw new IllegalArgumentException("tenant regions '" + p + "' has an empty region name");
                }
                regions.add(region.trim());
            }
            tenants.put(p.substring(0, eq).trim(), regions);
        }
        return new Residency(tenants);
    }

    public Set<String> tenantRegions(String tenant) {
        return tenant == null ? Set.of() : tenantRegions.getOrDefault(tenant, Set.of());
    }

    /**
     * The request limited to the regions both it and its tenant allow, or empty when they allow
     * no region in common (the request must be rejected, see {@link #conflict}).
     */
    public Optional<RouteRequest> constrain(RouteRequest request) {
        Set<String> tenant = tenantRegions(request.tenant());
        if (tenant.isEmpty()) {
            return Optional.of(request);
        }
        Set<String> own = request.allowedRegions();
        if (own.isEmpty()) {
            return Optional.of(request.withAllowedRegions(tenant));
        }
        Set<String> both = new HashSet<>(own);
        both.retainAll(tenant);
        return both.isEmpty() ? Optional.empty() : Optional.of(request.withAllowedRegions(both));
    }

    /** Why a request {@link #constrain} refused may run nowhere (region names only). */
    public String conflict(RouteRequest request) {
        return "no region allowed by both the request " + new TreeSet<>(request.allowedRegions()) + " and tenant "
                + request.tenant() + " " + new TreeSet<>(tenantRegions(request.tenant()));
    }

    /** Whether running the request in {@code region} respects both its own and its tenant's constraint. */
    public boolean permits(RouteRequest request, String region) {
        Set<String> tenant = tenantRegions(request.tenant());
        return request.allowsRegion(region) && (tenant.isEmpty() || tenant.contains(region));
    }
}
