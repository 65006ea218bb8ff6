package io.kvroute.router;

import io.kvroute.platform.health.HealthStatus;
import io.kvroute.platform.health.ProcessHealth;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The router's probes, from its Kafka Streams state: live unless the streams client has failed or
 * stopped (a restart is then the remedy); ready only while RUNNING, that is with its tasks assigned
 * and restored (not while starting, rebalancing or restoring state).
 */
final class RouterHealth {
    private RouterHealth() {
    }

    static ProcessHealth of(Supplier<KafkaStreams.State> state) {
        return new ProcessHealth(() -> live(state.get()), () -> ready(state.get()));
    }

    static HealthStatus live(KafkaStreams.State state) {
        return switch (state) {
            case ERROR, PENDING_ERROR, NOT_RUNNING, PENDING_SHUTDOWN -> HealthStatus.down("streams " + state);
            default -> HealthStatus.up("streams " + state);
        };
    }

    static HealthStatus ready(KafkaStreams.State state) {
        return state == KafkaStreams.State.RUNNING ? HealthStatus.up("streams RUNNING")
                : HealthStatus.down("streams " + state + " (ready when RUNNING)");
    }
}
