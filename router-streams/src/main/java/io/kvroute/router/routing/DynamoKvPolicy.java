package io.kvroute.router.routing;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Baseline: NVIDIA Dynamo's KV router cost at temperature 0 ({@code lib/kv-router/src/scheduling/selector},
 * defaults of {@code KvRouterConfig} in {@code lib/kv-router/src/scheduling/config.rs}), in blocks of
 * the request's {@code blockTokens} tokens.
 *
 * <pre>
 * prefill_blocks = max(0, (the worker's active prefill tokens + this prompt's tokens) / block
 *                         - {@value #OVERLAP_SCORE_CREDIT} · device_overlap - {@value #HOST_CACHE_HIT_WEIGHT} · host_overlap)
 * decode_blocks  = the worker's active KV blocks + this request's new blocks there
 *                  (its prompt blocks not already in the worker's GPU memory: "potential decode blocks")
 * cost           = {@value #PREFILL_LOAD_SCALE} · prefill_blocks + decode_blocks; lowest wins
 * </pre>
 *
 * Active prefill tokens are the worker's queued prefill tokens plus the router's pending ones;
 * active KV blocks its used KV blocks plus the router's pending ones (Dynamo tracks the sequences
 * it routed itself; here that is the worker's telemetry plus the pending-load ledger).
 *
 * <p>Overlap comes from the workers' KV events ({@link KvEventIndex}); blocks a worker reported
 * offloaded to host memory earn {@value #HOST_CACHE_HIT_WEIGHT} of a GPU block's credit
 * ({@code host_cache_hit_weight}). When the index has no event of any candidate (workers without
 * KV events, the bench's {@code --no-kv-events}), Dynamo's approximate mode
 * ({@code use_kv_events = false}): the router's own record of where it sent blocks
 * ({@link ApproximatePrefixIndex}), each block forgotten {@value #APPROXIMATE_TTL_MS} ms after it
 * was last routed there ({@code router_ttl_secs}, 120 s), all as GPU blocks. Dynamo runs one mode
 * for the whole fleet, so the choice is per decision, not per worker: once some candidate reports
 * events, a silent one (or one whose view a gap emptied) counts no overlap, as in Dynamo's event
 * mode.
 *
 * <p>Dynamo counts as new only the prompt blocks not shared with the worker's active sequences;
 * the router here knows no per-sequence blocks, so it counts those not in the worker's GPU memory
 * by the same overlap. Exact ties go to the instance's tie-break order (Dynamo picks at random).
 */
public final class DynamoKvPolicy implements RoutingPolicy {
    public static final String NAME = "dynamo-kv";
    /** {@code overlap_score_credit} (formerly {@code overlap_score_weight}): credit of a cached GPU block. */
    public static final double OVERLAP_SCORE_CREDIT = 1.0;
    /** {@code prefill_load_scale}: weight of the prefill blocks left after the credits. */
    public static final double PREFILL_LOAD_SCALE = 1.0;
    /** {@code host_cache_hit_weight}: credit of a block cached in the worker's host memory. */
    public static final double HOST_CACHE_HIT_WEIGHT = 0.75;
    /** {@code router_ttl_secs}: how long the approximate mode counts a block it routed. */
    public static final long APPROXIMATE_TTL_MS = 120_000;

    private final RouterState state;
    private final Comparator<ScoredWorker> order;

    public DynamoKvPolicy(RouterState state) {
        this.state = state;
        this.order = ScoredWorker.lowestFirst(state.tieBreak());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Optional<Placement> place(RouteRequest request, List<WorkerSnapshot> candidates, long nowMs) {
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        boolean approximate = approximateMode(candidates);
        List<ScoredWorker> ranked = ScoredWorker.rank(candidates, worker -> score(request, worker, nowMs, approximate), order);
        ScoredWorker best = ranked.get(0);
        return Optional.of(ScoredWorker.placement(state, ranked, nowMs, String.format(
                "lowest KV cost %.1f blocks; %d prefix blocks %s", best.score(), best.matched(),
                approximate ? "routed there within the TTL (no KV events)" : "reported cached")));
    }

    /** Whether no candidate has KV events in the index: Dynamo without KV events, its approximate mode. */
    private boolean approximateMode(List<WorkerSnapshot> candidates) {
        KvEventIndex events = state.kvEventIndex();
        for (WorkerSnapshot worker : candidates) {
            if (events.knows(worker.workerId())) {
                return false;
            }
        }
        return true;
    }

    ScoredWorker score(RouteRequest request, WorkerSnapshot worker, long nowMs, boolean approximate) {
        double block = request.blockTokens();
        PendingLoad pending = state.pending(worker, nowMs);
        int overlap = approximate
                ? state.routedMatchWithin(worker, request, nowMs, APPROXIMATE_TTL_MS)
                : state.reportedMatch(worker, request);
        int hostOverlap = approximate ? 0 : state.hostOnlyBlocks(worker, request, overlap);
        int deviceOverlap = overlap - hostOverlap;
        double activePrefillBlocks = (worker.queuedPrefillTokens() + pending.prefillTokens()) / block;
        double creditBlocks = OVERLAP_SCORE_CREDIT * deviceOverlap + HOST_CACHE_HIT_WEIGHT * hostOverlap;
        double prefillBlocks = Math.max(0.0, activePrefillBlocks + request.promptTokens() / block - creditBlocks);
        double activeDecodeBlocks = (double) (worker.kvBlocksUsed() + pending.kvBlocks()) * worker.kvBlockTokens() / block;
        int newDecodeBlocks = Math.max(0, request.promptBlocks() - deviceOverlap);
        double decodeBlocks = activeDecodeBlocks + newDecodeBlocks;
        double cost = PREFILL_LOAD_SCALE * prefillBlocks + decodeBlocks;
        Map<String, Double> components = new LinkedHashMap<>();
        components.put("prefill_blocks", prefillBlocks);
        components.put("active_prefill_blocks", activePrefillBlocks);
        components.put("decode_blocks", decodeBlocks);
        components.put("active_decode_blocks", activeDecodeBlocks);
        components.put("new_decode_blocks", (double) newDecodeBlocks);
        components.put("overlap_blocks", (double) overlap);
        components.put("host_overlap_blocks", (double) hostOverlap);
        components.put("approximate", approximate ? 1.0 : 0.0);
        return new ScoredWorker(worker, cost, overlap, components);
    }
}
