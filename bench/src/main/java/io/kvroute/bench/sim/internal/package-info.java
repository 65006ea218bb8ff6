/** The event loop of one simulation run and its simulated GPU workers. */
package io.kvroute.bench.sim.internal;
