package io.kvroute.router.topology;

import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.KvCacheEvent;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.WorkerStatus;
import io.kvroute.schemas.v1.WorkerTelemetry;
import java.util.List;

/** Valid records to start tests from. */
final class Records {
    private Records() {
    }

    static InferenceRequest.Builder request(String id, long submittedAtMs) {
        return InferenceRequest.newBuilder()
                .setRequestId(id)
                .setTenant("tenant-a")
                .setModel("llama-3.1-8b")
                .setPrompt("Summarise the attached report in three bullet points.")
                .setMaxTokens(64)
                .setPrefixBlockHashes(List.of(11L, 12L, 13L))
                .setPromptTokenEstimate(150)
                .setSubmittedAtMs(submittedAtMs);
    }

    static WorkerTelemetry.Builder telemetry(String workerId, String region, List<Integer> partitions, long observedAtMs) {
        return WorkerTelemetry.newBuilder()
                .setWorkerId(workerId)
                .setRegion(region)
                .setModels(List.of("llama-3.1-8b"))
                .setOwnedPartitions(partitions)
                .setKvBlocksTotal(28_000)
                .setKvBlocksUsed(1_000)
                .setKvUsage(1_000 / 28_000.0)
                .setRunningRequests(2)
                .setWaitingRequests(0)
                .setRunningDecode(2)
                .setStatus(WorkerStatus.HEALTHY)
                .setObservedAtMs(observedAtMs);
    }

    static KvCacheEvent.Builder kvEvent(String workerId, String region, long sequence, List<Long> stored, long observedAtMs) {
        return KvCacheEvent.newBuilder()
                .setWorkerId(workerId)
                .setRegion(region)
                .setSequence(sequence)
                .setStoredBlockHashes(stored)
                .setEvictedBlockHashes(List.of())
                .setAllCleared(false)
                .setObservedAtMs(observedAtMs);
    }

    static final String HAND_BACK_REASON = "rate limited: server rate limit (HTTP 429)";

    /** What a worker writes instead of a terminal when its server answered 429 (see the schema's {@code handedBack}). */
    static ResponseEvent handBack(String requestId, int runAttempt, long producedAtMs) {
        return ResponseEvent.newBuilder().setRequestId(requestId).setAttempt(runAttempt).setSequence(0)
                .setProducedAtMs(producedAtMs).setHandedBack(HAND_BACK_REASON).build();
    }
}
