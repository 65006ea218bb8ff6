package io.kvroute.bench.sim;

import io.kvroute.bench.sim.internal.SimulationRun;
import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.router.routing.Policies;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Entry point of the discrete-event simulator: replays a trace through a routing policy (the
 * router's own classes) against a simulated fleet (the worker's own engine model). Each run is
 * independent and deterministic for the config's seed, so runs of several policies may go in
 * parallel and still give the same numbers.
 */
public final class Simulator {
    private Simulator() {
    }

    public static PolicyResult run(String policy, List<TraceRequest> trace, SimConfig config) {
        return run(policy, trace, config, SimulationObserver.NONE);
    }

    public static PolicyResult run(String policy, List<TraceRequest> trace, SimConfig config, SimulationObserver observer) {
        if (!Policies.exists(policy)) {
            throw new IllegalArgumentException("unknown routing policy '" + policy + "', known: " + Policies.names());
        }
        return new SimulationRun(policy, trace, config, observer).run().withOracle(Bounds.oracleTtftsMs(trace, config));
    }

    /** A run under a scenario's {@link Conditions}: the usual result and what happened to each request. */
    public record Outcome(PolicyResult result, RunLog log) {
    }

    public static Outcome run(String policy, List<TraceRequest> trace, SimConfig config, Conditions conditions,
                              SimulationObserver observer) {
        if (!Policies.exists(policy)) {
            throw new IllegalArgumentException("unknown routing policy '" + policy + "', known: " + Policies.names());
        }
        SimulationRun run = new SimulationRun(policy, trace, config, observer, conditions);
        PolicyResult result = run.run().withOracle(Bounds.oracleTtftsMs(trace, config));
        return new Outcome(result, run.log());
    }

    /** Runs every policy (on up to {@code threads} threads); results in the order of {@code policies}. */
    public static Map<String, PolicyResult> runAll(List<String> policies, List<TraceRequest> trace, SimConfig config, int threads) {
        policies.forEach(p -> {
            if (!Policies.exists(p)) {
                throw new IllegalArgumentException("unknown routing policy '" + p + "', known: " + Policies.names());
            }
        });
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads, policies.size())), r -> {
            Thread t = new Thread(r, "kvroute-sim");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<PolicyResult>> futures = new ArrayList<>();
            for (String policy : policies) {
                futures.add(pool.submit(() -> run(policy, trace, config)));
            }
            Map<String, PolicyResult> results = new LinkedHashMap<>();
            for (int i = 0; i < policies.size(); i++) {
                results.put(policies.get(i), futures.get(i).get());
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("simulation interrupted", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException("simulation failed: " + cause, cause);
        } finally {
            pool.shutdownNow();
        }
    }
}
