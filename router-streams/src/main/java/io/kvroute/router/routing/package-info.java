/**
 * Routing as pure functions of (request, worker snapshots, now): candidate filtering, the
 * pending-load ledger, the approximate prefix index, the KV-event index and the policies
 * (kvroute's own and the eight baselines of BASELINES.md, by name in
 * {@link io.kvroute.router.routing.Policies}). Nothing here imports Kafka, Avro or Micrometer (a
 * test enforces it), so the same classes run inside the Streams processor, in unit tests and in a
 * discrete-event simulator driven by a virtual clock.
 * Entry point: {@link io.kvroute.router.routing.Router#route}.
 */
package io.kvroute.router.routing;
