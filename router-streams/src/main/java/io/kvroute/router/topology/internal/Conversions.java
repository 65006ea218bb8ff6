package io.kvroute.router.topology.internal;

import io.kvroute.router.admission.RequestValidator;
import io.kvroute.router.routing.PeerPlacements;
import io.kvroute.router.routing.Placement;
import io.kvroute.router.routing.RouteRequest;
import io.kvroute.router.routing.ScoreComponents;
import io.kvroute.router.routing.ScoredCandidate;
import io.kvroute.router.routing.WorkerHealth;
import io.kvroute.router.routing.FinishedRun;
import io.kvroute.router.routing.ObservedWork;
import io.kvroute.router.routing.WorkerSnapshot;
import io.kvroute.schemas.topics.DecisionComponents;
import io.kvroute.schemas.v1.CandidateScore;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.RoutingDecision;
import io.kvroute.schemas.v1.TerminalResult;
import io.kvroute.schemas.v1.Usage;
import io.kvroute.schemas.v1.WorkerTelemetry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Maps between the Avro records on the wire and the Kafka-free routing model. */
public final class Conversions {
    private Conversions() {
    }

    public static RouteRequest toRouteRequest(InferenceRequest r) {
        return new RouteRequest(r.getRequestId(), r.getTenant(), r.getModel(), RequestValidator.promptTokens(r),
                toLongs(r.getPrefixBlockHashes()), r.getPrefixBlockTokens(), r.getMaxTokens(),
                r.getAllowedRegions() == null ? null : new HashSet<>(r.getAllowedRegions()),
                r.getPriority() == null ? null : r.getPriority().name(),
                r.getDeadlineMs() == null ? RouteRequest.NO_DEADLINE : r.getDeadlineMs());
    }

    public static WorkerSnapshot toSnapshot(WorkerTelemetry t) {
        return new WorkerSnapshot(t.getWorkerId(), t.getRegion(), new HashSet<>(t.getModels()), t.getOwnedPartitions(),
                t.getKvBlocksTotal(), t.getKvBlocksUsed(), t.getKvBlockTokens(), t.getKvUsage(), t.getRunningRequests(),
                t.getWaitingRequests(), t.getRunningPrefill(), t.getRunningDecode(), t.getQueuedPrefillTokens(),
                t.getQueuedPrefillAttention(),
                t.getMaxRunningRequests(), t.getPrefixCacheHitRate(), t.getTokensPerSecond(),
                WorkerHealth.parse(t.getStatus() == null ? null : t.getStatus().name()),
                t.getObservedAtMs(), t.getRateLimitedUntilMs() == null ? 0L : t.getRateLimitedUntilMs(), t.getPool(),
                new ObservedWork(t.getOwedPrefillTokens(), t.getOwedPrefillRequests(), t.getDecodingContextTokens(),
                        t.getRecentTtftMs(), t.getDecodeMsPerToken()));
    }

    /** A completed run's timing with its worker's telemetry, as the router learns engine speed from it. */
    public static FinishedRun toFinishedRun(TerminalResult result, WorkerSnapshot worker) {
        Usage usage = result.getUsage();
        return FinishedRun.of(worker, usage.getPromptTokens(), usage.getCachedTokens(), usage.getCompletionTokens(),
                result.getTtftMs(), result.getDecodeMs() == null ? -1 : result.getDecodeMs(),
                result.getQueuedAheadTokens() == null ? -1 : result.getQueuedAheadTokens(),
                result.getPromptTokensDuringDecode() == null ? -1 : result.getPromptTokensDuringDecode());
    }

    public static DispatchedRequest dispatched(InferenceRequest request, Placement placement, String policy, long nowMs) {
        return DispatchedRequest.newBuilder()
                .setRequest(request)
                .setAttempt(1)
                .setRegion(placement.region())
                .setPartition(placement.partition())
                .setWorkerId(placement.workerId())
                .setPolicy(policy)
                .setMatchedPrefixBlocks(placement.matchedBlocks())
                .setDecidedAtMs(nowMs)
                .build();
    }

    /**
     * A DISPATCHED decision of router instance {@code routerInstance}; it carries the request's sizes
     * and block hashes so that the other instances can follow it ({@link #toPeerPlacement}).
     */
    public static RoutingDecision dispatchedDecision(InferenceRequest request, RouteRequest routed, Placement placement, String policy,
                                                     int candidates, String routerInstance, long nowMs) {
        List<ScoredCandidate> top = placement.topCandidates();
        boolean alike = scoredAlike(top);
        List<String> names = alike ? ((ScoreComponents) top.get(0).components()).names()
                : DecisionComponents.names(top.stream().map(ScoredCandidate::components).toList());
        List<CandidateScore> scores = new ArrayList<>(top.size());
        for (ScoredCandidate c : top) {
            scores.add(new CandidateScore(c.workerId(), c.region(), c.partition(), c.score(), Map.of(),
                    alike ? ((ScoreComponents) c.components()).floatValues() : DecisionComponents.values(names, c.components())));
        }
        return RoutingDecision.newBuilder()
                .setRouterInstance(routerInstance)
                .setPromptTokens(routed.promptTokens())
                .setMaxTokens(routed.maxTokens())
                .setPrefixBlockTokens(routed.blockTokens())
                .setPrefixBlockHashes(request.getPrefixBlockHashes() == null ? List.of() : request.getPrefixBlockHashes())
                .setRequestId(request.getRequestId())
                .setTenant(nullToEmpty(request.getTenant()))
                .setModel(nullToEmpty(request.getModel()))
                .setOutcome(DecisionOutcome.DISPATCHED)
                .setRegion(placement.region())
                .setPartition(placement.partition())
                .setWorkerId(placement.workerId())
                .setPolicy(policy)
                .setAttempt(1)
                .setPromptBlocks(blockCount(request))
                .setMatchedPrefixBlocks(placement.matchedBlocks())
                .setScore(placement.score())
                .setCandidatesConsidered(candidates)
                .setComponentNames(names)
                .setTopCandidates(scores)
                .setReason(placement.reason())
                .setDecidedAtMs(nowMs)
                .build();
    }

    /**
     * The placement another router instance's decision record tells, for this instance to follow;
     * empty for its own decisions, refusals, and decisions of routers older than peer following
     * (no instance or sizes in them).
     */
    public static Optional<PeerPlacements.PeerPlacement> toPeerPlacement(RoutingDecision d, String ownInstance) {
        if (d.getOutcome() != DecisionOutcome.DISPATCHED || d.getWorkerId() == null || d.getPartition() == null
                || d.getRouterInstance().isEmpty() || d.getRouterInstance().equals(ownInstance) || d.getPromptTokens() <= 0
                || d.getPrefixBlockTokens() <= 0) {
            return Optional.empty();
        }
        RouteRequest request = new RouteRequest(d.getRequestId(), d.getTenant(), d.getModel(), d.getPromptTokens(),
                toLongs(d.getPrefixBlockHashes()),
                d.getPrefixBlockTokens(), Math.max(1, d.getMaxTokens()), null, null, RouteRequest.NO_DEADLINE);
        return Optional.of(new PeerPlacements.PeerPlacement(request, d.getWorkerId(), d.getPartition(), d.getDecidedAtMs()));
    }

    private static long[] toLongs(List<Long> hashes) {
        long[] blocks = new long[hashes == null ? 0 : hashes.size()];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = hashes.get(i);
        }
        return blocks;
    }

    /** A decision that refuses a request; {@code request} may be null when it could not be decoded. */
    public static RoutingDecision refusedDecision(String requestId, InferenceRequest request, DecisionOutcome outcome,
                                                  String policy, int candidates, String reason, long nowMs) {
        return RoutingDecision.newBuilder()
                .setRequestId(requestId)
                .setTenant(request == null ? "" : nullToEmpty(request.getTenant()))
                .setModel(request == null ? "" : nullToEmpty(request.getModel()))
                .setOutcome(outcome)
                .setPolicy(policy)
                .setAttempt(1)
                .setPromptBlocks(request == null ? 0 : blockCount(request))
                .setCandidatesConsidered(candidates)
                .setReason(reason)
                .setDecidedAtMs(nowMs)
                .build();
    }

    /** The router's terminal answer for a request it will not run: attempt 1, sequence 0, no chunks. */
    public static ResponseEvent terminal(String requestId, InferenceRequest request, ResponseStatus status, String error, long nowMs) {
        TerminalResult terminal = TerminalResult.newBuilder()
                .setStatus(status)
                .setFinishReason(status.name().toLowerCase())
                .setUsage(Usage.newBuilder().build())
                .setError(error)
                .setModel(request == null ? null : request.getModel())
                .build();
        return ResponseEvent.newBuilder()
                .setRequestId(requestId)
                .setCustomId(request == null ? null : request.getCustomId())
                .setAttempt(1)
                .setSequence(0)
                .setTerminal(terminal)
                .setProducedAtMs(nowMs)
                .setTenant(request == null ? null : request.getTenant())
                .build();
    }

    /**
     * The router's answer to a later request that reused an accepted id: a REJECTED terminal marked
     * {@code duplicate}, attempt 0 so that it is outranked by every run of the request the id belongs
     * to even for a reader that does not know the flag; readers never take it as that request's result.
     */
    public static ResponseEvent duplicateTerminal(String requestId, InferenceRequest request, String error, long nowMs) {
        ResponseEvent event = terminal(requestId, request, ResponseStatus.REJECTED, error, nowMs);
        event.setAttempt(0);
        event.setDuplicate(true);
        return event;
    }

    /** Whether every candidate's components are array-backed under the same names (one policy's candidates are). */
    private static boolean scoredAlike(List<ScoredCandidate> candidates) {
        if (candidates.isEmpty() || !(candidates.get(0).components() instanceof ScoreComponents first)) {
            return false;
        }
        for (ScoredCandidate c : candidates) {
            if (!(c.components() instanceof ScoreComponents components) || !components.sameNamesAs(first)) {
                return false;
            }
        }
        return true;
    }

    private static int blockCount(InferenceRequest request) {
        return request.getPrefixBlockHashes() == null ? 0 : request.getPrefixBlockHashes().size();
    }

    /** Tenant and model fields are optional in requests and required in decisions: absent becomes empty. */
    static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
