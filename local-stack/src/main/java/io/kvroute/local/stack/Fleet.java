package io.kvroute.local.stack;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Helpers over a list of regions. */
public final class Fleet {
    private Fleet() {
    }

    public static Map<String, Integer> slotsByRegion(List<RegionSpec> regions) {
        Map<String, Integer> slots = new LinkedHashMap<>();
        regions.forEach(r -> slots.put(r.name(), r.slots()));
        return slots;
    }

    public static String regionNames(List<RegionSpec> regions) {
        return String.join(",", regions.stream().map(RegionSpec::name).toList());
    }
}
