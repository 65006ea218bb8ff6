package io.kvroute.bench.suite;

import io.kvroute.bench.sim.SimConfig;
import io.kvroute.bench.sim.SimulationObserver;
import io.kvroute.bench.sim.Simulator;
import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.bench.trace.Traces;
import io.kvroute.router.routing.RoundRobinPolicy;
import io.kvroute.router.routing.RoutingResult;
import io.kvroute.router.routing.WorkerSnapshot;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;

/**
 * Finds the load scale at which round-robin keeps a fleet a given share busy while requests arrive: the engine time of
 * its steps between the first and the last arrival, over GPUs x that span. The bench's {@code busy} column divides by
 * the whole makespan instead, and past saturation the drain after the last arrival lowers it again, so a search on it
 * stopped at a light load or an arbitrary one. A GPU with a sequence decoding is busy all the time it decodes, so a
 * trace of long answers reads busy at light loads already; the search takes the lowest scale reaching the target.
 * (Counting only the steps that prefill instead put round-robin's 85 % past its saturation on every workload: it
 * recomputes the prefixes it scatters.)
 *
 * <p>The scale is searched upwards from an eighth of a start, by factors of 2 until the target is reached, then by
 * bisection on a log scale. Past eight times the start the search stops at the closest share found, and the suite's
 * table says how busy that kept round-robin. Any trace calibrates alike, so the suite's loads mean the same on one it
 * has never seen.
 */
final class LoadCalibration {
    /** How far below and above the start the search goes, as a factor. */
    static final double RANGE = 8.0;
    /** Bisections between the last scale short of the target and the first past it (a factor of 2 apart). */
    static final int BISECTIONS = 5;

    private final List<TraceRequest> trace;
    private final SimConfig config;
    private final TreeMap<Double, Double> busyByScale = new TreeMap<>();

    LoadCalibration(List<TraceRequest> trace, SimConfig config) {
        this.trace = trace;
        this.config = config;
    }

    /** The lowest scale from {@code start / RANGE} on at which round-robin's busy share reaches {@code target}. */
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

    /** Round-robin's busy share while requests arrive at {@code scale} (each scale run once). */
    double busy(double scale) {
        return busyByScale.computeIfAbsent(scale, s -> {
            List<TraceRequest> scaled = Traces.scaleLoad(trace, s);
            long from = scaled.get(0).arrivalMs();
            long to = scaled.get(scaled.size() - 1).arrivalMs();
            StepTime steps = new StepTime(from, to);
            Simulator.run(RoundRobinPolicy.NAME, scaled, config, steps);
            return to <= from ? 0.0 : steps.ms / ((double) config.fleet().totalGpus() * (to - from));
        });
    }

    /** Sums the engine time of steps within {@code [from, to]}. */
    private static final class StepTime implements SimulationObserver {
        final long from;
        final long to;
        double ms;

        StepTime(long from, long to) {
            this.from = from;
            this.to = to;
        }

        @Override
        public void onDecision(long nowMs, int requestIndex, Collection<WorkerSnapshot> view, RoutingResult result) {
        }

        @Override
        public void onStep(int gpu, long startMs, double durationMs, long prefillTokens) {
            ms += Math.max(0.0, Math.min(to, startMs + durationMs) - Math.max(from, startMs));
        }
    }
}
