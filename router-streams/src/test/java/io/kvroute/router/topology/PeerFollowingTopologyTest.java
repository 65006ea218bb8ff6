package io.kvroute.router.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.router.topology.internal.Conversions;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.RoutingDecision;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A router instance writes in its decisions what the others need to follow them, and follows
 * theirs before its next decision.
 */
class PeerFollowingTopologyTest {
    @TempDir
    Path stateDir;

    private TopologyHarness harness;

    @BeforeEach
    void open() {
        harness = new TopologyHarness(stateDir, Map.of());
        harness.report(Records.telemetry("east-1", "us-east", List.of(0), harness.now()));
        harness.report(Records.telemetry("east-2", "us-east", List.of(1), harness.now()));
    }

    @AfterEach
    void close() {
        harness.close();
    }

    @Test
    void shouldNotSendWorkToTheWorkerAnotherInstanceHasJustLoaded() {
        // the two workers report the same load: without the peer's placement, the tie goes to east-1
        assertThat(harness.peers.offer(Conversions.toPeerPlacement(peerDecision("peers", "east-1", 0), TopologyHarness.INSTANCE)
                .orElseThrow())).isTrue();
        harness.send(Records.request("mine", harness.now()).setAllowedRegions(List.of("us-east")).build());

        assertThat(harness.dispatched("us-east").readValue().getWorkerId()).isEqualTo("east-2");
        assertThat(harness.peers.followed()).isEqualTo(1);
    }

    @Test
    void shouldFollowTheOtherInstancesWhileNoRequestComes() {
        harness.peers.offer(Conversions.toPeerPlacement(peerDecision("peers", "east-1", 0), TopologyHarness.INSTANCE).orElseThrow());
        assertThat(harness.peers.followed()).isZero();

        harness.advance(100);

        assertThat(harness.peers.followed()).isEqualTo(1);
        assertThat(harness.peers.queued()).isZero();
    }

    @Test
    void shouldWriteInItsDecisionsWhatTheOtherInstancesNeedToFollowThem() {
        harness.send(Records.request("mine", harness.now()).setAllowedRegions(List.of("us-east")).build());

        RoutingDecision decision = harness.decisions.readValue();
        assertThat(decision.getOutcome()).isEqualTo(DecisionOutcome.DISPATCHED);
        assertThat(decision.getRouterInstance()).isEqualTo(TopologyHarness.INSTANCE);
        assertThat(decision.getPromptTokens()).isEqualTo(150);
        assertThat(decision.getMaxTokens()).isEqualTo(64);
        assertThat(decision.getPrefixBlockTokens()).isPositive();
        assertThat(decision.getPrefixBlockHashes()).containsExactly(11L, 12L, 13L);

        assertThat(Conversions.toPeerPlacement(decision, TopologyHarness.INSTANCE)).as("its own").isEmpty();
        var followed = Conversions.toPeerPlacement(decision, "instance-b").orElseThrow();
        assertThat(followed.workerId()).isEqualTo(decision.getWorkerId());
        assertThat(followed.partition()).isEqualTo(decision.getPartition());
        assertThat(followed.request().prefixBlockHashes()).containsExactly(11L, 12L, 13L);
        assertThat(followed.decidedAtMs()).isEqualTo(decision.getDecidedAtMs());
    }

    @Test
    void shouldFollowNeitherRefusalsNorTheDecisionsOfOlderRouters() {
        RoutingDecision older = peerDecision("older", "east-1", 0);
        older.setRouterInstance("");
        older.setPromptTokens(0);
        RoutingDecision refusal = peerDecision("refused", "east-1", 0);
        refusal.setOutcome(DecisionOutcome.REJECTED);

        assertThat(Conversions.toPeerPlacement(older, TopologyHarness.INSTANCE)).isEmpty();
        assertThat(Conversions.toPeerPlacement(refusal, TopologyHarness.INSTANCE)).isEmpty();
    }

    /** Another instance's DISPATCHED decision of a 6,000-token prompt with a prefix of its own. */
    private RoutingDecision peerDecision(String id, String worker, int partition) {
        List<Long> hashes = new ArrayList<>();
        for (long h = 0; h < 90; h++) {
            hashes.add(1_000 + h);
        }
        return RoutingDecision.newBuilder()
                .setRequestId(id)
                .setTenant("tenant-b")
                .setModel("llama-3.1-8b")
                .setOutcome(DecisionOutcome.DISPATCHED)
                .setRegion("us-east")
                .setPartition(partition)
                .setWorkerId(worker)
                .setPolicy("kvroute")
                .setReason("peer")
                .setDecidedAtMs(harness.now())
                .setRouterInstance("instance-b")
                .setPromptTokens(6_000)
                .setMaxTokens(200)
                .setPrefixBlockTokens(64)
                .setPrefixBlockHashes(hashes)
                .build();
    }
}
