/**
 * Named bench scenarios ({@code kvroute bench --scenario NAME}) for admission and multi-region
 * placement: a region outage, a noisy neighbour, a provider pool answering 429. Each builds its
 * workload and {@link io.kvroute.bench.sim.Conditions}, runs the simulator and reports figures.
 */
package io.kvroute.bench.scenario;
