package io.kvroute.local.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.topics.DeadLetterHeaders;
import io.kvroute.schemas.v1.CandidateScore;
import io.kvroute.schemas.v1.ChatMessage;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.RoutingDecision;
import io.kvroute.schemas.v1.WorkerStatus;
import io.kvroute.schemas.v1.WorkerTelemetry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/** The console's in-memory views: bounded, filtered, stale workers marked, and no prompt text in what they serve. */
class ConsoleViewsTest {
    private static final long NOW = 1_000_000;

    static {
        // loading the serde trusts kvroute's generated classes (Avro 1.12), as it does in the console itself
        new io.kvroute.schemas.serde.Serdes(new io.kvroute.schemas.registry.InMemorySchemaRegistryClient()).valueSerde(InferenceRequest.class);
    }

    @Test
    void shouldMarkAWorkerStaleWhenItsTelemetryIsOlderThanTheThreshold() {
        FleetView fleet = new FleetView(Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC), 2_000);
        fleet.update("us-east-0", telemetry("us-east-0", "us-east", NOW - 500));
        fleet.update("eu-west-0", telemetry("eu-west-0", "eu-west", NOW - 5_000));

        Map<String, Object> snapshot = fleet.snapshot();

        assertThat(snapshot.get("workerCount")).isEqualTo(2);
        assertThat(snapshot.get("staleWorkers")).isEqualTo(1);
        assertThat(snapshot.toString()).contains("workerId=eu-west-0, region=eu-west, pool=, status=HEALTHY, stale=true, ageMs=5000");
        assertThat(snapshot.toString()).contains("workerId=us-east-0, region=us-east, pool=, status=HEALTHY, stale=false, ageMs=500");
    }

    @Test
    void shouldForgetAWorkerOnATombstone() {
        FleetView fleet = new FleetView(Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC), 2_000);
        fleet.update("us-east-0", telemetry("us-east-0", "us-east", NOW));
        fleet.update("us-east-0", null);

        assertThat(fleet.snapshot().get("workerCount")).isEqualTo(0);
    }

    @Test
    void shouldKeepOnlyTheNewestDecisionsAndFilterThemNewestFirst() {
        DecisionLog log = new DecisionLog(3);
        log.add(decision("r1", "a", "us-east", DecisionOutcome.DISPATCHED, 10));
        log.add(decision("r2", "b", "eu-west", DecisionOutcome.DISPATCHED, 30));
        log.add(decision("r3", "a", null, DecisionOutcome.NO_CAPACITY, 20));
        log.add(decision("r4", "a", "us-east", DecisionOutcome.DISPATCHED, 40));

        Map<String, Object> all = log.snapshot(new DecisionLog.Filter(null, null, null, null), 10);
        Map<String, Object> tenantA = log.snapshot(new DecisionLog.Filter("a", "", "", ""), 10);
        Map<String, Object> noCapacity = log.snapshot(new DecisionLog.Filter(null, null, "NO_CAPACITY", null), 10);

        assertThat(all.get("read")).isEqualTo(4L);
        assertThat(ids(all)).containsExactly("r4", "r2", "r3");
        assertThat(ids(tenantA)).containsExactly("r4", "r3");
        assertThat(ids(noCapacity)).containsExactly("r3");
        assertThat(all.get("outcomes")).isEqualTo(Map.of("DISPATCHED", 3L, "NO_CAPACITY", 1L));
    }

    @Test
    void shouldCountDeadLettersByReasonAndKeepOnlyTheNewest() {
        DeadLetterLog log = new DeadLetterLog(2);
        for (int i = 0; i < 5; i++) {
            log.add(deadLetter("k" + i, i % 2 == 0 ? "java.lang.IllegalStateException" : "org.apache.kafka.common.errors.SerializationException", i));
        }

        Map<String, Object> snapshot = log.snapshot(10);

        assertThat(snapshot.get("read")).isEqualTo(5L);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> reasons = (List<Map<String, Object>>) snapshot.get("reasons");
        assertThat(reasons).extracting(r -> r.get("count")).containsExactly(3L, 2L);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> recent = (List<Map<String, Object>>) snapshot.get("recent");
        assertThat(recent).extracting(r -> r.get("key")).containsExactly("k4", "k3");
        assertThat(snapshot.toString()).doesNotContain("user secret value");
    }

    @Test
    void shouldShowARequestBySizesNeverByItsText() {
        InferenceRequest request = InferenceRequest.newBuilder().setRequestId("r1").setTenant("t").setModel("m").setMaxTokens(8)
                .setMessages(List.of(new ChatMessage("system", "you are secret-system"), new ChatMessage("user", "secret-question")))
                .setPrefixBlockHashes(List.of(1L, 2L, 3L)).setSubmittedAtMs(NOW).build();

        Map<String, Object> view = RecordViews.request(request);

        assertThat(view.toString()).doesNotContain("secret");
        assertThat(view).containsEntry("promptChars", "you are secret-system".length() + "secret-question".length())
                .containsEntry("messages", 2).containsEntry("prefixBlocks", 3);
    }

    @SuppressWarnings("unchecked")
    private static List<String> ids(Map<String, Object> snapshot) {
        return ((List<Map<String, Object>>) snapshot.get("decisions")).stream().map(d -> (String) d.get("requestId")).toList();
    }

    private static WorkerTelemetry telemetry(String id, String region, long observedAt) {
        return WorkerTelemetry.newBuilder().setWorkerId(id).setRegion(region).setKvBlocksTotal(100).setKvBlocksUsed(10).setKvUsage(0.1)
                .setRunningRequests(1).setWaitingRequests(0).setStatus(WorkerStatus.HEALTHY).setObservedAtMs(observedAt).build();
    }

    private static RoutingDecision decision(String id, String tenant, String region, DecisionOutcome outcome, long at) {
        return RoutingDecision.newBuilder().setRequestId(id).setTenant(tenant).setModel("m").setOutcome(outcome).setRegion(region)
                .setWorkerId(region == null ? null : region + "-0").setPartition(region == null ? null : 0).setPolicy("kvroute")
                .setReason("test").setDecidedAtMs(at)
                .setComponentNames(List.of("ttft_ms"))
                .setTopCandidates(List.of(new CandidateScore("us-east-0", "us-east", 0, 1.0, Map.of(), List.of(1.0f)))).build();
    }

    private static ConsumerRecord<String, byte[]> deadLetter(String key, String errorClass, long offset) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(DeadLetterHeaders.SOURCE_TOPIC, "kvroute.requests".getBytes(StandardCharsets.UTF_8));
        headers.add(DeadLetterHeaders.SOURCE_PARTITION, "0".getBytes(StandardCharsets.UTF_8));
        headers.add(DeadLetterHeaders.SOURCE_OFFSET, Long.toString(offset).getBytes(StandardCharsets.UTF_8));
        headers.add(DeadLetterHeaders.ERROR_CLASS, errorClass.getBytes(StandardCharsets.UTF_8));
        headers.add(DeadLetterHeaders.ERROR_MESSAGE, "bad".getBytes(StandardCharsets.UTF_8));
        headers.add(DeadLetterHeaders.FAILED_AT_MS, Long.toString(NOW + offset).getBytes(StandardCharsets.UTF_8));
        return new ConsumerRecord<>("kvroute.dlq", 0, offset, NOW, org.apache.kafka.common.record.TimestampType.CREATE_TIME, 0, 0, key,
                "user secret value".getBytes(StandardCharsets.UTF_8), headers, java.util.Optional.empty());
    }
}
