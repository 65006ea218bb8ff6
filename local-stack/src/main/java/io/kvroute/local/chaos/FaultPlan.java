package io.kvroute.local.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * When each fault strikes: for every kind, its count of times drawn uniformly (seeded) from a
 * window of the run, sorted. Pure, so a seed always gives the same schedule.
 */
public final class FaultPlan {
    /** One fault of {@code kind} due {@code atMs} after the workload starts. */
    public record PlannedFault(long atMs, FaultKind kind) {
    }

    private final List<PlannedFault> faults;

    private FaultPlan(List<PlannedFault> faults) {
        this.faults = List.copyOf(faults);
    }

    /**
     * @param counts how many faults of each kind
     * @param fromMs earliest time of a fault, after the workload starts
     * @param toMs latest time of a fault
     */
    public static FaultPlan generate(Map<FaultKind, Integer> counts, long fromMs, long toMs, long seed) {
        if (fromMs < 0 || toMs < fromMs) {
            throw new IllegalArgumentException("fault window must be 0 <= from <= to, was " + fromMs + ".." + toMs);
        }
        SplittableRandom random = new SplittableRandom(seed);
        List<PlannedFault> faults = new ArrayList<>();
        for (FaultKind kind : FaultKind.values()) {
            int count = counts.getOrDefault(kind, 0);
            if (count < 0) {
                throw new IllegalArgumentException("fault count for " + kind.jsonName() + " must be >= 0, was " + count);
            }
            for (int i = 0; i < count; i++) {
                faults.add(new PlannedFault(fromMs + (long) (random.nextDouble() * (toMs - fromMs)), kind));
            }
        }
        faults.sort(Comparator.comparingLong(PlannedFault::atMs).thenComparing(PlannedFault::kind));
        return new FaultPlan(faults);
    }

    public List<PlannedFault> faults() {
        return faults;
    }

    public Map<FaultKind, Integer> countsByKind() {
        Map<FaultKind, Integer> counts = new EnumMap<>(FaultKind.class);
        for (FaultKind kind : FaultKind.values()) {
            counts.put(kind, 0);
        }
        faults.forEach(f -> counts.merge(f.kind(), 1, Integer::sum));
        return counts;
    }
}
