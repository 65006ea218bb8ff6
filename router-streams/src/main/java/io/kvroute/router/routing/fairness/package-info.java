/**
 * Fair sharing of the router's queue between tenants: priorities, then virtual token counters
 * ({@link io.kvroute.router.routing.fairness.FairQueue}). Pure Java, clock-free.
 */
package io.kvroute.router.routing.fairness;
