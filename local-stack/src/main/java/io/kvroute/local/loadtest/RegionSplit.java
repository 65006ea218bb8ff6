package io.kvroute.local.loadtest;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How {@code W} fake workers spread over the local stack's three regions: in the default fleet's
 * proportions (us-east 4, eu-west 2, ap-south 2 of 8), so {@code W = 8} is exactly that fleet.
 * A region left without a worker is left out (it would have no dispatch partition).
 */
public final class RegionSplit {
    private static final List<String> REGIONS = List.of("us-east", "eu-west", "ap-south");
    private static final int[] WEIGHTS = {2, 1, 1};

    private RegionSplit() {
    }

    /** Slots per region, in region order, summing to {@code workers}. */
    public static Map<String, Integer> of(int workers) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be at least 1, was " + workers);
        }
        int totalWeight = 4;
        int[] slots = new int[REGIONS.size()];
        int given = 0;
        for (int i = 0; i < slots.length; i++) {
            slots[i] = workers * WEIGHTS[i] / totalWeight;
            given += slots[i];
        }
        // the remainder goes to the regions in order, so small fleets fill us-east first
        for (int i = 0; given < workers; i = (i + 1) % slots.length) {
            slots[i]++;
            given++;
        }
        Map<String, Integer> split = new LinkedHashMap<>();
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] > 0) {
                split.put(REGIONS.get(i), slots[i]);
            }
        }
        return split;
    }

    /** The split in the local stack's fleet notation ({@code us-east=4,eu-west=2,...}). */
    public static String fleetSpec(int workers) {
        return spec(of(workers));
    }

    /** Worker processes per region when each serves up to {@code gpusPerWorker} of the region's GPUs (the last maybe fewer). */
    public static Map<String, Integer> processes(Map<String, Integer> gpusByRegion, int gpusPerWorker) {
        if (gpusPerWorker < 1) {
            throw new IllegalArgumentException("GPUs per worker must be at least 1, was " + gpusPerWorker);
        }
        Map<String, Integer> processes = new LinkedHashMap<>();
        gpusByRegion.forEach((region, gpus) -> processes.put(region, (gpus + gpusPerWorker - 1) / gpusPerWorker));
        return processes;
    }

    /** A count per region in the local stack's fleet notation. */
    public static String spec(Map<String, Integer> byRegion) {
        StringBuilder spec = new StringBuilder();
        byRegion.forEach((region, n) -> spec.append(spec.isEmpty() ? "" : ",").append(region).append('=').append(n));
        return spec.toString();
    }
}
