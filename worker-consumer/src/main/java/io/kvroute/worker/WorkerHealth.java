package io.kvroute.worker;

import io.kvroute.platform.health.HealthStatus;
import io.kvroute.platform.health.ProcessHealth;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A worker's probes: live while its dispatch loop runs (it stops on its own only on a fault a
 * restart cures, e.g. fenced or unable to read its committed offsets); ready while, besides, it
 * owns a dispatch partition (it is in its region's group and assigned work) and its engine's
 * server is reachable.
 */
final class WorkerHealth {
    private WorkerHealth() {
    }

    static ProcessHealth of(BooleanSupplier dispatchRunning, Supplier<List<Integer>> ownedPartitions, Supplier<String> unreachable) {
        return new ProcessHealth(() -> live(dispatchRunning.getAsBoolean()),
                () -> ready(dispatchRunning.getAsBoolean(), ownedPartitions.get(), unreachable.get()));
    }

    static HealthStatus live(boolean dispatchRunning) {
        return dispatchRunning ? HealthStatus.up("dispatch loop running") : HealthStatus.down("dispatch loop stopped");
    }

    /** {@code unreachable}: why the engine's server cannot be reached, or null. */
    static HealthStatus ready(boolean dispatchRunning, List<Integer> ownedPartitions, String unreachable) {
        if (!dispatchRunning) {
            return HealthStatus.down("dispatch loop stopped");
        }
        if (ownedPartitions.isEmpty()) {
            return HealthStatus.down("no dispatch partition assigned (joining its region's group, or more workers than partitions)");
        }
        if (unreachable != null) {
            return HealthStatus.down("engine unreachable: " + unreachable);
        }
        return HealthStatus.up("dispatch partitions " + ownedPartitions);
    }
}
