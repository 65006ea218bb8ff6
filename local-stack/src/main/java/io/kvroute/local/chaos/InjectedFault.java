package io.kvroute.local.chaos;

/**
 * A fault as it happened: what, on which process or region, when it struck and when the target
 * was back (epoch ms; {@code recoveredAtMs} 0 while it is not). {@code target} is null when no
 * target was eligible (e.g. every worker already down) and the fault was skipped.
 */
public record InjectedFault(FaultKind kind, String target, long struckAtMs, long recoveredAtMs) {
    public boolean skipped() {
        return target == null;
    }

    InjectedFault recovered(long atMs) {
        return new InjectedFault(kind, target, struckAtMs, atMs);
    }
}
