package io.kvroute.router.topology.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.router.routing.WorkerSnapshot;
import io.kvroute.schemas.v1.WorkerStatus;
import io.kvroute.schemas.v1.WorkerTelemetry;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConversionsTest {

    @Test
    void shouldCarryTheQueuedPrefillAndTheAttentionItOwesIntoTheSnapshot() {
        WorkerTelemetry telemetry = WorkerTelemetry.newBuilder()
                .setWorkerId("east-1").setRegion("us-east").setModels(List.of("llama-3.1-8b")).setOwnedPartitions(List.of(0))
                .setKvBlocksTotal(28_000).setKvBlocksUsed(7_000).setKvUsage(0.25)
                .setRunningRequests(3).setWaitingRequests(2).setRunningPrefill(1).setRunningDecode(2)
                .setQueuedPrefillTokens(12_000).setQueuedPrefillAttention(170_000_000L)
                .setStatus(WorkerStatus.HEALTHY).setObservedAtMs(1_000).build();

        WorkerSnapshot snapshot = Conversions.toSnapshot(telemetry);

        assertThat(snapshot.queuedPrefillTokens()).isEqualTo(12_000);
        assertThat(snapshot.queuedPrefillAttention()).isEqualTo(170_000_000L);
        assertThat(snapshot.runningPrefill()).isEqualTo(1);
        assertThat(snapshot.waiting()).isEqualTo(2);
    }
}
