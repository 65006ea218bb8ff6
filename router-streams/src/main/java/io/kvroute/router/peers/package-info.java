/**
 * Router instances following each other: each reads the others' DISPATCHED decisions from the
 * decisions topic and hands them to its routing thread, which accounts them as its own placements
 * (pending load, prefix claims, the policy's history) before its next decision.
 */
package io.kvroute.router.peers;
