/**
 * Routing as pure functions of (request, worker snapshots, now): candidate filtering, the
 * pending-load ledger, the approximate prefix index, the KV-event index and the policies
 * (kvroute's own and the eight baselines of BASELINES.md, by name in
 * {@link io.kvroute.router.routing.Policies}). Nothing here imports Kafka, Avro or Micrometer (a
 * test enforces it), so the same classes run inside the Streams processor, in unit tests and in a
 * discrete-event simulator driven by a virtual clock.
 * Entry point: {@link io.kvroute.router.routing.Router#route}.
 *
 * <p>Multi-region placement: {@link io.kvroute.router.routing.Residency} narrows a request to the
 * regions it and its tenant allow (hard constraint for every later decision),
 * {@link io.kvroute.router.routing.Cooldowns} keeps rate-limited workers and pools out of the
 * candidates until their cool-down ends, and {@link io.kvroute.router.routing.RegionCatalog} gives
 * the kvroute policy each region's delay and price. Admission: tenant quotas in
 * {@code routing.quota}, the fair queue in {@code routing.fairness}.
 */
package io.kvroute.router.routing;
