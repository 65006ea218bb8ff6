package io.kvroute.router.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What placement knows about one region besides its workers' telemetry.
 *
 * @param delayMs              one-way network delay between the router (and its users) and the region's workers
 * @param costPerMillionTokens price of a million tokens (prompt + output) served there; 0 = free or unknown
 * @param sharedRateLimit      the region is one rate-limited pool (an external provider, a GPU pool with one
 *                             quota): a 429 from any of its workers cools the whole region, not only that worker
 */
public record RegionProfile(String name, long delayMs, double costPerMillionTokens, boolean sharedRateLimit) {
    /** The notation {@link #parseList} reads, e.g. for a {@code router.region.profiles} setting. */
    public static final String EXAMPLE = "us-east@5:0.30,eu-west@40:0.25,provider@60:0.10:shared";

    public RegionProfile {
        Objects.requireNonNull(name, "name");
        if (delayMs < 0 || !(costPerMillionTokens >= 0)) {
            throw new IllegalArgumentException("region " + name + ": delay and cost must not be negative, were "
                    + delayMs + " ms and " + costPerMillionTokens);
        }
    }

    /**
     * Parses {@code name@delayMs[:costPerMillionTokens[:shared]]}, comma separated (see {@link #EXAMPLE});
     * a malformed part fails naming it.
     */
    public static List<RegionProfile> parseList(String spec) {
        List<RegionProfile> profiles = new ArrayList<>();
        if (spec == null || spec.isBlank()) {
            return profiles;
        }
        for (String part : spec.split(",")) {
            String p = part.trim();
            int at = p.indexOf('@');
            String[] fields = at < 0 ? new String[0] : p.substring(at + 1).split(":");
            if (at <= 0 || fields.length < 1 || fields.length > 3 || (fields.length == 3 && !fields[2].equals("shared"))) {
                throw new IllegalArgumentException("region profile '" + p + "' is not name@delayMs[:cost[:shared]] (e.g. " + EXAMPLE + ")");
            }
            try {
                profiles.add(new RegionProfile(p.substring(0, at), Long.parseLong(fields[0]),
                        fields.length > 1 ? Double.parseDouble(fields[1]) : 0.0, fields.length == 3));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("region profile '" + p + "' has a non-numeric delay or cost", e);
            }
        }
        return profiles;
    }
}
