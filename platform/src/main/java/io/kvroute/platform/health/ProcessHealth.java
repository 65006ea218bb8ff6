package io.kvroute.platform.health;

import java.util.function.Supplier;

/**
 * A process's two probes, as a supervisor (Kubernetes, a compose healthcheck) reads them:
 * {@code live} fails only when restarting the process is the remedy; {@code ready} fails while it
 * cannot do its work yet or for now (starting, rebalancing, its engine unreachable).
 */
public record ProcessHealth(Supplier<HealthStatus> live, Supplier<HealthStatus> ready) {
    /** For a process with nothing to check: both probes pass. */
    public static final ProcessHealth ALWAYS_UP = new ProcessHealth(() -> HealthStatus.up("running"), () -> HealthStatus.up("running"));
}
