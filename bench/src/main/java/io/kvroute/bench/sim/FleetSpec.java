package io.kvroute.bench.sim;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The simulated fleet: pools of GPUs, each in a region at a one-way network delay from the router
 * and optionally with its own engine. Written {@code us-east=4@5,eu-west=2@40} (name=gpus@delayMs)
 * or, per pool, {@code us-east=4@5:llama-8b-h100,us-east=2@5:llama-8b-a100} (name=gpus@delayMs:engine);
 * a pool without an engine runs the run's {@code --engine}. A region may hold several pools (at one
 * delay): its GPUs are numbered across them, in the order written.
 */
public record FleetSpec(List<Pool> pools) {
    /** The default fleet: six GPUs near the router, two across an ocean. */
    public static final String DEFAULT = "us-east=6@5,eu-west=2@40";

    /** One region: {@code gpus} simulated GPUs (all its pools'), {@code delayMs} one way from the router. */
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

    /**
     * {@code gpus} GPUs of one engine in {@code region}.
     *
     * @param engine an {@link EngineProfile} name, or null for the run's engine
     */
    public record Pool(String region, int gpus, long delayMs, String engine) {
        public Pool {
            new Region(region, gpus, delayMs); // the same rules
            if (engine != null) {
                engine = EngineProfile.named(engine).name(); // an unknown one fails with the known ones
            }
        }

        /** A pool of the run's engine. */
        public Pool(String region, int gpus, long delayMs) {
            this(region, gpus, delayMs, null);
        }

        @Override
        public String toString() {
            return region + "=" + gpus + "@" + delayMs + (engine == null ? "" : ":" + engine);
        }
    }

    public FleetSpec {
        pools = List.copyOf(pools);
        if (pools.isEmpty()) {
            throw new IllegalArgumentException("a fleet needs at least one region");
        }
        Map<String, Long> delays = new LinkedHashMap<>();
        for (Pool pool : pools) {
            Long delay = delays.putIfAbsent(pool.region(), pool.delayMs());
            if (delay != null && delay != pool.delayMs()) {
                throw new IllegalArgumentException("region " + pool.region() + " has pools at " + delay + " and "
                        + pool.delayMs() + " ms; a region's pools share its delay");
            }
        }
    }

    public static FleetSpec defaults() {
        return parse(DEFAULT);
    }

    /** Parses {@code name=gpus@delayMs[:engine][,...]}; a malformed part fails naming it. */
    public static FleetSpec parse(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("fleet spec is empty; expected e.g. " + DEFAULT);
        }
        List<Pool> pools = new ArrayList<>();
        for (String part : spec.split(",")) {
            String p = part.trim();
            int eq = p.indexOf('=');
            int at = p.indexOf('@');
            int colon = p.indexOf(':');
            int end = colon < 0 ? p.length() : colon;
            if (eq <= 0 || at <= eq + 1 || at >= end - 1 || colon == p.length() - 1) {
                throw new IllegalArgumentException("fleet part '" + p + "' is not name=gpus@delayMs[:engine] (e.g. " + DEFAULT
                        + " or us-east=4@5:" + EngineProfile.LLAMA_8B_A100.name() + ")");
            }
            int gpus;
            long delay;
            try {
                gpus = Integer.parseInt(p.substring(eq + 1, at));
                delay = Long.parseLong(p.substring(at + 1, end));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("fleet part '" + p + "' has a non-numeric GPU count or delay", e);
            }
            try {
                pools.add(new Pool(p.substring(0, eq), gpus, delay, colon < 0 ? null : p.substring(colon + 1)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("fleet part '" + p + "': " + e.getMessage(), e);
            }
        }
        return new FleetSpec(pools);
    }

    /** The regions in order of first mention, each with all its pools' GPUs. */
    public List<Region> regions() {
        Map<String, Region> regions = new LinkedHashMap<>();
        for (Pool pool : pools) {
            regions.merge(pool.region(), new Region(pool.region(), pool.gpus(), pool.delayMs()),
                    (a, b) -> new Region(a.name(), a.gpus() + b.gpus(), a.delayMs()));
        }
        return List.copyOf(regions.values());
    }

    /** GPUs per region, in order: the dispatch topics' partition counts. */
    public Map<String, Integer> gpusByRegion() {
        Map<String, Integer> gpus = new LinkedHashMap<>();
        regions().forEach(r -> gpus.put(r.name(), r.gpus()));
        return gpus;
    }

    /** Region names, comma separated, as {@code router.regions} takes them. */
    public String regionNames() {
        return regions().stream().map(Region::name).collect(Collectors.joining(","));
    }

    public int totalGpus() {
        return pools.stream().mapToInt(Pool::gpus).sum();
    }

    public long smallestDelayMs() {
        return pools.stream().mapToLong(Pool::delayMs).min().orElse(0);
    }

    public long largestDelayMs() {
        return pools.stream().mapToLong(Pool::delayMs).max().orElse(0);
    }

    @Override
    public String toString() {
        return pools.stream().map(Pool::toString).collect(Collectors.joining(","));
    }
}
