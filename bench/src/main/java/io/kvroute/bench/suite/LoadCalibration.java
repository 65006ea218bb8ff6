package io.kvroute.bench.suite;

import io.kvroute.bench.sim.PolicyResult;
import io.kvroute.bench.sim.SimConfig;
import io.kvroute.bench.sim.SimulationObserver;
import io.kvroute.bench.sim.Simulator;
import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.bench.trace.Traces;
import io.kvroute.router.routing.RoundRobinPolicy;
import io.kvroute.router.routing.RoutingResult;
import io.kvroute.router.routing.WorkerSnapshot;
import java.util.Collection;
import java.util.TreeMap;

/**
 * Finds the load scale at which round-robin keeps a fleet a given share busy prefilling: the engine time of steps
 * that carry prefill, over GPUs x makespan. The bench's {@code busy} column counts every step, and a GPU with one
 * sequence decoding is busy all the time it decodes, so a trace of long answers reads 97 % busy at any load (the
 * conversation workload did at a twelfth of its default rate) and cannot be calibrated by it; prefill comes with
 * arrivals, and its share grows with the load.
 *
 * <p>The scale is searched upwards from an eighth of a start, by factors of 2 until the target is reached, then by
 * bisection on a log scale: the lowest scale that reaches it. A trace whose arrivals come in bursts leaves its GPUs
 * idle between them and reaches a high share only once the scale packs its bursts together; past eight times the start
 * the search stops at the closest share found, and the suite's table says how busy that kept round-robin. Any trace
 * calibrates alike, so the suite's loads mean the same on one it has never seen.
 */
final class LoadCalibration {
    /** How far below and above the start the search goes, as a factor. */
    static final double RANGE = 8.0;
    /** Bisections between the last scale short of the target and the first past it (a factor of 2 apart). */
    static final int BISECTIONS = 5;

    private final java.util.List<TraceRequest> trace;
    private final SimConfig config;
    private final TreeMap<Double, Double> busyByScale = new TreeMap<>();

    LoadCalibration(java.util.List<TraceRequest> trace, SimConfig config) {
        this.trace = trace;
        this.config = config;
    }

    /** The lowest scale from {@code start / RANGE} on at which round-robin's prefill-busy share reaches {@code target}. */
    double scaleFor(double target, double start) {
        double below = Double.NaN;
        double scale = start / RANGE;
        while (busy(scale) < target && scale < start * RANGE) {
            below = scale;
            scale *= 2;
        }
        if (busy(scale) >= target && !Double.isNaN(below)) {
            double above = scale;
            for (int i = 0; i < BISECTIONS; i++) {
                double mid = Math.sqrt(below * above);
                if (busy(mid) < target) {
                    below = mid;
                } else {
                    above = mid;
                }
            }
            return busy(below) >= target || Math.abs(busy(below) - target) < Math.abs(busy(above) - target) ? below : above;
        }
        return scale;
    }

    /** Round-robin's prefill-busy share at {@code scale} (each scale run once). */
    double busy(double scale) {
        return busyByScale.computeIfAbsent(scale, s -> {
            PrefillTime prefill = new PrefillTime();
            PolicyResult result = Simulator.run(RoundRobinPolicy.NAME, Traces.scaleLoad(trace, s), config, prefill);
            return result.makespanS() <= 0 ? 0.0 : prefill.ms / (config.fleet().totalGpus() * result.makespanS() * 1000.0);
        });
    }

    /** Sums the engine time of steps that prefilled something. */
    private static final class PrefillTime implements SimulationObserver {
        double ms;

        @Override
        public void onDecision(long nowMs, int requestIndex, Collection<WorkerSnapshot> view, RoutingResult result) {
        }

        @Override
        public void onStep(int gpu, double durationMs, long prefillTokens) {
            if (prefillTokens > 0) {
                ms += durationMs;
            }
        }
    }
}
