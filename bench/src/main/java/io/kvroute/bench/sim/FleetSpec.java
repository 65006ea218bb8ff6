package io.kvroute.bench.sim;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The simulated fleet: regions, each with a number of GPUs and a one-way network delay between
 * the router and its GPUs. Written {@code us-east=4@5,eu-west=2@40} (name=gpus@delayMs).
 */
public record FleetSpec(List<Region> regions) {
    /** The default fleet: six GPUs near the router, two across an ocean. */
    public static final String DEFAULT = "us-east=6@5,eu-west=2@40";

    /** One region: {@code gpus} simulated GPUs, {@code delayMs} one way from the router. */
    public record Region(String name, int gpus, long delayMs) {
        public Region {
            Objects.requireNonNull(name, "name");
            if (name.isBlank() || !name.matches("[A-Za-z0-9._-]+")) {
                throw new IllegalArgumentException("region name must be letters, digits, '.', '_' or '-', was '" + name + "'");
            }
            if (gpus < 1) {
                throw new IllegalArgumentException("region " + name + " needs at least 1 GPU, was " + gpus);
            }
            if (delayMs < 0) {
                throw new IllegalArgumentException("region " + name + " delay must not be negative, was " + delayMs);
            }
        }

        @Override
        public String toString() {
            return name + "=" + gpus + "@" + delayMs;
        }
    }

    public FleetSpec {
        regions = List.copyOf(regions);
        if (regions.isEmpty()) {
            throw new IllegalArgumentException("a fleet needs at least one region");
        }
        Set<String> names = new HashSet<>();
        for (Region region : regions) {
            if (!names.add(region.name())) {
                throw new IllegalArgumentException("region " + region.name() + " appears twice in the fleet");
            }
        }
    }

    public static FleetSpec defaults() {
        return parse(DEFAULT);
    }

    /** Parses {@code name=gpus@delayMs[,...]}; a malformed part fails naming it. */
    public static FleetSpec parse(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("fleet spec is empty; expected e.g. " + DEFAULT);
        }
        List<Region> regions = new ArrayList<>();
        for (String part : spec.split(",")) {
            String p = part.trim();
            int eq = p.indexOf('=');
            int at = p.indexOf('@');
            if (eq <= 0 || at <= eq + 1 || at == p.length() - 1) {
                throw new IllegalArgumentException("fleet part '" + p + "' is not name=gpus@delayMs (e.g. " + DEFAULT + ")");
            }
            try {
                regions.add(new Region(p.substring(0, eq), Integer.parseInt(p.substring(eq + 1, at)),
                        Long.parseLong(p.substring(at + 1))));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("fleet part '" + p + "' has a non-numeric GPU count or delay", e);
            }
        }
        return new FleetSpec(regions);
    }

    /** GPUs per region, in order: the dispatch topics' partition counts. */
    public java.util.Map<String, Integer> gpusByRegion() {
        java.util.Map<String, Integer> gpus = new java.util.LinkedHashMap<>();
        regions.forEach(r -> gpus.put(r.name(), r.gpus()));
        return gpus;
    }

    /** Region names, comma separated, as {@code router.regions} takes them. */
    public String regionNames() {
        return regions.stream().map(Region::name).collect(Collectors.joining(","));
    }

    public int totalGpus() {
        return regions.stream().mapToInt(Region::gpus).sum();
    }

    public long smallestDelayMs() {
        return regions.stream().mapToLong(Region::delayMs).min().orElse(0);
    }

    public long largestDelayMs() {
        return regions.stream().mapToLong(Region::delayMs).max().orElse(0);
    }

    @Override
    public String toString() {
        return regions.stream().map(Region::toString).collect(Collectors.joining(","));
    }
}
