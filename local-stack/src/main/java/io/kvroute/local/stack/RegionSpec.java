package io.kvroute.local.stack;

import java.util.ArrayList;
import java.util.List;

/** One simulated region of the local stack: its GPU slots (one worker each) and its network delay. */
public record RegionSpec(String name, int slots, long networkDelayMs) {
    public RegionSpec {
        if (slots < 1) {
            throw new IllegalArgumentException("region " + name + " needs at least one GPU slot, was " + slots);
        }
        if (networkDelayMs < 0) {
            throw new IllegalArgumentException("region " + name + " network delay must be >= 0 ms, was " + networkDelayMs);
        }
    }

    /** The default fleet: three regions of different size and distance. */
    public static List<RegionSpec> defaultFleet() {
        return List.of(new RegionSpec("us-east", 4, 5), new RegionSpec("eu-west", 2, 40), new RegionSpec("ap-south", 2, 90));
    }

    /** Parses {@code name=slots[@delayMs],...}, e.g. {@code us-east=4@5,eu-west=2@40}. */
    public static List<RegionSpec> parseFleet(String spec) {
        List<RegionSpec> regions = new ArrayList<>();
        for (String part : spec.split(",")) {
            String trimmed = part.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            try {
                String[] nameAndRest = trimmed.split("=", 2);
                String[] slotsAndDelay = nameAndRest[1].split("@", 2);
                regions.add(new RegionSpec(nameAndRest[0].trim(), Integer.parseInt(slotsAndDelay[0].trim()),
                        slotsAndDelay.length > 1 ? Long.parseLong(slotsAndDelay[1].trim()) : 0));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("fleet spec '" + trimmed + "' is not name=slots[@delayMs]: " + e.getMessage(), e);
            }
        }
        if (regions.isEmpty()) {
            throw new IllegalArgumentException("fleet spec '" + spec + "' names no region");
        }
        return regions;
    }
}
