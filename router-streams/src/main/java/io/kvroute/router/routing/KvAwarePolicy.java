package io.kvroute.router.routing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * kvroute's own policy: the candidate with the lowest estimated time to first token wins.
 *
 * <pre>
 * queue_ms   = (queued prefill tokens + pending prefill tokens) / prefill rate
 * prefill_ms = this request's tokens NOT cached on that worker / prefill rate
 * decode_ms  = prefill steps * decoding sequences * per-sequence step cost (decode slows each chunked-prefill step)
 * batch_ms   = requests beyond the batch limit * per-request slot wait
 * kv_penalty = large when the request would push KV usage past the headroom
 * score      = queue_ms + prefill_ms + decode_ms + batch_ms + kv_penalty
 * </pre>
 *
 * Cached prefix blocks are the larger of what workers report in their KV events ({@link KvEventIndex},
 * precise) and what the router itself placed there ({@link ApproximatePrefixIndex}, covering
 * workers that do not report and events still in flight): {@link RouterState#matchedBlocks};
 * pending load from the {@link PendingLoadLedger}, so a burst spreads instead of herding. Ties go
 * to the lexicographically smallest worker id; the partition is the worker's least pending one.
 */
public final class KvAwarePolicy implements RoutingPolicy {
    public static final String NAME = "kvroute";
    /** Tokens one engine step prefills (vLLM V1 max batched tokens on H100-class GPUs). */
    static final int STEP_TOKENS = 8_192;
    /** Extra ms per decoding sequence per step (0.0044 ms + 2k context at 7.6e-5 ms/token). */
    static final double DECODE_MS_PER_SEQUENCE_STEP = 0.16;
    /** Wait per request queued beyond the batch limit, about one completion's share of a slot. */
    static final double SLOT_WAIT_MS = 25.0;
    static final double KV_PENALTY_MS = 10_000.0;
    static final int TOP_CANDIDATES = 3;

    private final RouterState state;

    public KvAwarePolicy(RouterState state) {
        this.state = state;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Optional<Placement> place(RouteRequest request, List<WorkerSnapshot> candidates, long nowMs) {
        List<Scored> scored = new ArrayList<>(candidates.size());
        for (WorkerSnapshot worker : candidates) {
            scored.add(score(request, worker, nowMs));
        }
        if (scored.isEmpty()) {
            return Optional.empty();
        }
        scored.sort(Comparator.comparingDouble(Scored::score).thenComparing(s -> s.worker().workerId()));
        Scored best = scored.get(0);
        int partition = state.leastPendingPartition(best.worker(), nowMs);
        List<ScoredCandidate> top = new ArrayList<>();
        for (Scored s : scored.subList(0, Math.min(TOP_CANDIDATES, scored.size()))) {
            int p = s == best ? partition : s.worker().ownedPartitions().get(0);
            top.add(new ScoredCandidate(s.worker().workerId(), s.worker().region(), p, s.score(), s.components()));
        }
        String reason = String.format("lowest estimated TTFT %.0f ms; %d prefix blocks cached", best.score(), best.matched());
        return Optional.of(new Placement(best.worker().workerId(), best.worker().region(), partition, best.score(),
                best.matched(), top, reason));
    }

    Scored score(RouteRequest request, WorkerSnapshot worker, long nowMs) {
        RoutingSettings settings = state.settings();
        PendingLoad pending = state.pending(worker, nowMs);
        int matched = state.matchedBlocks(worker, request);
        int uncached = request.uncachedTokens(matched);
        double rate = settings.prefillRate(worker);
        long queuedTokens = worker.queuedPrefillTokens() + pending.prefillTokens();
        double queueMs = queuedTokens * 1000.0 / rate;
        double prefillMs = uncached * 1000.0 / rate;
        long steps = Math.max(1, (queuedTokens + uncached + STEP_TOKENS - 1) / STEP_TOKENS);
        double decodeMs = steps * (worker.runningDecode() + pending.requests()) * DECODE_MS_PER_SEQUENCE_STEP;
        long ahead = (long) worker.running() + worker.waiting() + pending.requests();
        double batchMs = Math.max(0, ahead + 1 - worker.maxRunning()) * SLOT_WAIT_MS;
        double kvAfter = CandidateFilter.kvUsageWith(worker,
                pending.kvBlocks() + settings.kvBlocksNeeded(request, matched, worker.kvBlockTokens()));
        double kvPenaltyMs = kvAfter > settings.kvHeadroom() ? KV_PENALTY_MS * (1 + kvAfter - settings.kvHeadroom()) : 0.0;
        double score = queueMs + prefillMs + decodeMs + batchMs + kvPenaltyMs;
        Map<String, Double> components = new LinkedHashMap<>();
        components.put("queue_ms", queueMs);
        components.put("prefill_ms", prefillMs);
        components.put("decode_ms", decodeMs);
        components.put("batch_ms", batchMs);
        components.put("kv", kvAfter);
        components.put("kv_penalty_ms", kvPenaltyMs);
        components.put("prefix_blocks", (double) matched);
        components.put("pending_requests", (double) pending.requests());
        return new Scored(worker, score, matched, components);
    }

    record Scored(WorkerSnapshot worker, double score, int matched, Map<String, Double> components) {
    }
}
