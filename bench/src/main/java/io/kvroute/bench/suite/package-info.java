/**
 * The bench suite: every workload at three loads over several seeds, every policy, in observable
 * telemetry with a router that starts from no engine profile, judged on what placement adds to
 * each request's own oracle TTFT ({@code kvroute bench --suite}).
 */
package io.kvroute.bench.suite;
