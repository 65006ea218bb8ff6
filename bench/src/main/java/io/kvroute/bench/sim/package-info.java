/**
 * The discrete-event simulator: a trace replayed in virtual time through the router's own
 * routing classes against a fleet of the worker's own simulated engines.
 *
 * <p>Entry point {@link io.kvroute.bench.sim.Simulator} ({@code run} one policy, {@code runAll}
 * several, in parallel, each run deterministic for {@link io.kvroute.bench.sim.SimConfig#seed()});
 * the fleet is a {@link io.kvroute.bench.sim.FleetSpec}, the result a
 * {@link io.kvroute.bench.sim.PolicyResult}, the trace's limits {@link io.kvroute.bench.sim.Bounds}.
 *
 * <p>What the model keeps from production: a router decision at a request's arrival (or at the
 * 50 ms parked-retry punctuator when no worker was a candidate); the dispatch record consumed by
 * the GPU's worker {@code dispatchLatencyMs} later, then the region's one-way delay before the
 * engine gets it (counted as waiting in telemetry meanwhile, as the live simulated engine does);
 * engine steps only while there is work; first tokens and completions reach the user one region
 * delay after the step that made them. Each worker's telemetry publisher checks its engine five
 * times per interval and publishes at least once per interval, sooner on a significant change,
 * with its KV events on the same tick; both reach the router one region delay later. The
 * router's pending-load ledger sees its own placements at once. Prefix hashes are the trace's
 * block ids (512-token blocks for Mooncake), for the router and the engine alike.
 */
package io.kvroute.bench.sim;
