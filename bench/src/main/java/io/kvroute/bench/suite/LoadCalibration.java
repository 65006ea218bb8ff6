package io.kvroute.bench.suite;

import io.kvroute.bench.sim.SimConfig;
import io.kvroute.bench.sim.Simulator;
import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.bench.trace.Traces;
import io.kvroute.router.routing.RoundRobinPolicy;
import java.util.List;
import java.util.TreeMap;

/**
 * Finds the load scale at which round-robin keeps a fleet a given share busy (engine step time / (GPUs x makespan)):
 * doubling or halving from a start until the target is bracketed, then bisecting the bracket on a log scale. Any
 * trace calibrates alike, so the suite's loads mean the same on a trace it has never seen.
 */
final class LoadCalibration {
    /**
     * Doublings or halvings to bracket the target, at most: a trace whose arrivals come in bursts leaves its GPUs idle
     * between them, so its busy share creeps up only as the scale packs the whole trace into one burst (the Azure code
     * trace reached 85 % at 23 times its default scale). Past a factor of 8 the suite keeps the closest scale found, and
     * its table says how busy that kept round-robin.
     */
    static final int BRACKET_STEPS = 3;
    /** Bisections of the bracket, which starts a factor of 2 wide: its ends then differ by 2^(1/64) at most. */
    static final int BISECTIONS = 6;

    private final List<TraceRequest> trace;
    private final SimConfig config;
    private final TreeMap<Double, Double> busyByScale = new TreeMap<>();

    LoadCalibration(List<TraceRequest> trace, SimConfig config) {
        this.trace = trace;
        this.config = config;
    }

    /** The scale whose round-robin busy share came closest to {@code target}, of those tried from {@code start}. */
    double scaleFor(double target, double start) {
        double lo = start;
        double hi = start;
        for (int i = 0; i < BRACKET_STEPS && busy(lo) > target; i++) {
            lo /= 2;
        }
        for (int i = 0; i < BRACKET_STEPS && busy(hi) < target; i++) {
            hi *= 2;
        }
        if (busy(lo) <= target && busy(hi) >= target) {
            for (int i = 0; i < BISECTIONS; i++) {
                double mid = Math.sqrt(lo * hi);
                if (busy(mid) < target) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
        }
        double best = start;
        for (var e : busyByScale.entrySet()) {
            if (Math.abs(e.getValue() - target) < Math.abs(busyByScale.get(best) - target)) {
                best = e.getKey();
            }
        }
        return best;
    }

    /** Round-robin's busy share at {@code scale} (each scale run once). */
    double busy(double scale) {
        return busyByScale.computeIfAbsent(scale,
                s -> Simulator.run(RoundRobinPolicy.NAME, Traces.scaleLoad(trace, s), config).gpuBusy());
    }
}
