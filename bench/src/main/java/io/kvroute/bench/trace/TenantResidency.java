package io.kvroute.bench.trace;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which region each generated tenant may run in, from {@code --tenant-residency}: shares taken in
 * order, e.g. {@code eu-west=28,us-east} keeps tenants 0–27 in eu-west and every later tenant in
 * us-east. A share without a count takes all the tenants left and must come last; tenants past the
 * counted shares (when none takes the rest) may run anywhere.
 *
 * <p>It serves two uses: what a data-residency rule costs a fleet, and a placement chosen by hand
 * to set a policy's result against (a fixed split of the tenants between regions).
 */
public record TenantResidency(List<Share> shares) {
    public static final TenantResidency NONE = new TenantResidency(List.of());
    static final int REST = -1;

    /** {@code tenants} consecutive tenants kept in {@code region}; {@link #REST} for all that are left. */
    public record Share(String region, int tenants) {
    }

    public TenantResidency {
        shares = List.copyOf(shares);
    }

    /**
     * Parses {@code region=count[,...][,region]} for {@code tenants} tenants and a fleet with
     * {@code fleetRegions}; a malformed share, an unknown region, a region named twice, a share
     * for the rest that is not last or counts beyond the tenants fail naming the share.
     */
    public static TenantResidency parse(String text, int tenants, Collection<String> fleetRegions) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("--tenant-residency is empty; expected e.g. eu-west=28,us-east");
        }
        List<Share> shares = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        int counted = 0;
        String[] parts = text.split(",", -1);
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i].trim();
            int eq = part.indexOf('=');
            String region = eq < 0 ? part : part.substring(0, eq).trim();
            if (!fleetRegions.contains(region)) {
                throw new IllegalArgumentException("--tenant-residency share '" + part + "' names no region of the fleet "
                        + fleetRegions);
            }
            if (!seen.add(region)) {
                throw new IllegalArgumentException("--tenant-residency names region '" + region + "' twice in '" + text + "'");
            }
            if (eq < 0) {
                if (i != parts.length - 1) {
                    throw new IllegalArgumentException("--tenant-residency share '" + part
                            + "' takes the tenants left, so it must come last in '" + text + "'");
                }
                shares.add(new Share(region, REST));
                continue;
            }
            int count;
            try {
                count = Integer.parseInt(part.substring(eq + 1).trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--tenant-residency share '" + part + "' is not region=tenants", e);
            }
            counted += count;
            if (count < 1 || counted > tenants) {
                throw new IllegalArgumentException("--tenant-residency share '" + part + "' must keep at least 1 tenant and "
                        + "the shares at most the " + tenants + " tenants, counted " + counted);
            }
            shares.add(new Share(region, count));
        }
        return new TenantResidency(shares);
    }

    /** The regions tenant {@code tenant} (0-based, generation order) may run in; empty: any. */
    public Set<String> regionsOf(int tenant) {
        int first = 0;
        for (Share share : shares) {
            if (share.tenants() == REST || tenant < first + share.tenants()) {
                return Set.of(share.region());
            }
            first += share.tenants();
        }
        return Set.of();
    }

    @Override
    public String toString() {
        List<String> parts = new ArrayList<>();
        for (Share share : shares) {
            parts.add(share.tenants() == REST ? share.region() : share.region() + "=" + share.tenants());
        }
        return String.join(",", parts);
    }
}
