package io.kvroute.router.routing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * kvroute's own policy: each candidate is scored by this request's estimated time to first token
 * there plus what placing it there costs the requests that will arrive after it, and the lowest
 * score wins.
 *
 * <pre>
 * queue_ms       = GPU time of the work ahead of it when it arrives ({@link WorkerHistory}): the larger of the
 *                  worker's reported queue (its prompts' attention to what they have in KV at what the worker reports)
 *                  replayed forward and the router's own recent placements there, drained at one ms per ms, the
 *                  latter at most one full step above the former when the worker reported no prefill running or
 *                  that attention; with nothing ahead, half a step (it waits for the step in progress)
 * prefill_ms     = prefill time of this request's tokens NOT cached on that worker, attending to the cached ones
 * host_load_ms   = time to copy the cached blocks the worker holds only in host memory back to the GPU (its KV
 *                  events name them), which the engine does before the prefill
 * decode_ms      = steps of its prefill * the decode work each of those steps carries
 *                  (decoding sequences and the context they attend to)
 * batch_ms       = requests beyond the batch limit * the time the worker takes to free a slot: the average answer
 *                  length ({@link OutputLengths}, from results) / the tokens it generates per second (its telemetry),
 *                  or {@value #SLOT_WAIT_MS} ms until both are known
 * network_ms     = the region's round trip: {@link RegionCatalog#delayMs} when the catalog lists the region,
 *                  else learnt from how old its freshest telemetry is on arrival ({@link TransitDelays})
 * ttft_ms        = sum of the above: the estimate
 * kv_penalty_ms  = once the worker's KV usage after the placement passes the headroom: half the prefill time of
 *                  the tokens the request itself adds to its KV (its uncached prompt less a copied prefix, which
 *                  replication_ms charges, plus a decode reserve) / (1 - that usage)^2 with the free share at
 *                  least {@value #MIN_FREE_KV_OWN_PAGES}: the copy's price below for the request's own pages, growing
 *                  no further once they could cost a preemption. A holder past the headroom takes only those; a copy
 *                  elsewhere takes the prefix's pages too, which fill a second worker with the same blocks
 * congestion_ms  = queue_ms and batch_ms once more + arrival rate there * work^2 (work = prefill_ms + host_load_ms +
 *                  decode_ms, at most one full engine step) + arrival rate there * answer * a step's decode work for
 *                  one more sequence * (queue_ms + prefill_ms + decode_ms) (answer = the average answer length,
 *                  {@link OutputLengths}, at most its max tokens): joining a queue, of prefills or for a batch slot,
 *                  costs the requests behind it about as much as it costs this one, the requests arriving while its
 *                  work runs each wait for it, and while it decodes every step there is longer, for each request
 *                  arriving meanwhile as many times as it has steps to wait (about as many as this one)
 * replication_ms = half the prefill time of the prefix tokens another candidate holds and this one does not
 *                  (the copy's cache space evicts someone else's prefix) / (1 - the worker's KV usage after
 *                  it)^2: the copy's blocks stay in use while the prefix's requests run there, and extra load on a
 *                  resource used at u costs as 1/(1 - u)^2, the slope of the u/(1 - u) a queue for it grows by
 * future_gain_ms = for such a copy: the prefix's recent requests that found it cached somewhere ({@link
 *                  PrefixDemand}: placements count the blocks their candidates held, so a prefix's first request
 *                  and requests whose holders were not candidates are not counted; about as many will come in
 *                  the next {@value #ARRIVAL_RATE_TAU_MS} ms) / (holders + 1) (the copy shares them with
 *                  the holders) * how much sooner one of them would start here, holding the prefix, than at its
 *                  best holder now * the share of this worker's cache that is free (a copy into a full cache
 *                  evicts a prefix whose next requests lose about as much)
 * score          = ttft_ms + kv_penalty_ms + congestion_ms + replication_ms - future_gain_ms
 * </pre>
 *
 * Without the congestion charge, each request would load the nearest worker until it is as slow
 * as a distant one, and every request there would pay for it; with it, a busy worker's marginal
 * request goes to a quieter one even across regions, and a new prefix goes where few requests
 * arrive that it would hold up. Without the future gain, a request weighs only its own cold
 * prefill against a warm but busy or distant holder, and a prefix stays where it is long after a
 * nearer, idle GPU would serve its next requests sooner (a region back from an outage with empty
 * caches got its tenants back only as the others' queues grew).
 *
 * <p>When the {@link RegionCatalog} prices regions differently, the winner is instead the
 * candidate in the cheapest region whose TTFT estimate meets the request's target
 * ({@link LatencyClass}) within the KV headroom, the lowest score within that region; when no
 * candidate meets it, the lowest score (spill-over).
 *
 * <p>Cached prefix blocks are what workers report in their KV events ({@link KvEventIndex},
 * precise), or more where the router itself placed more there ({@link ApproximatePrefixIndex}):
 * for a worker that reports, only placements recent enough that their events may still be in
 * flight, as the worker's events also tell evictions; for one that does not, all of them
 * ({@link RouterState#cachedBlocks});
 * decoding sequences from telemetry plus the {@link PendingLoadLedger}, so a burst spreads instead
 * of herding. Ties go by the instance's {@link TieBreak} (the smallest worker id for a single router); while peer
 * instances place requests too, the choice is spread over the top candidates within {@value #PEER_SPREAD_MS} ms of the
 * lowest score, as they cannot see each other's last placements. The partition is the worker's least pending one.
 */
public final class KvAwarePolicy implements RoutingPolicy {
    public static final String NAME = "kvroute";
    /** Wait per request queued beyond the batch limit before any result tells how long answers are. */
    static final double SLOT_WAIT_MS = 25.0;
    /**
     * Share of a duplicated prefix's recompute time charged to a non-holder, for the prefix of
     * someone else that the copy will evict; the time the copy holds up others is in the
     * congestion charge.
     */
    static final double DUPLICATION_WEIGHT = 0.5;
    /**
     * Free KV share below which a copy's charge grows no further: 1 minus the default KV headroom (so a worker past
     * it is told from another only by the pages each would take).
     */
    static final double MIN_FREE_KV = 0.05;
    /**
     * The same floor for {@code kv_penalty_ms}, the request's own pages: at worst they cost a preemption (a sequence
     * recomputed), not the ever-growing price of a copy that fills a second worker with the same blocks. At 0.05 a
     * holder at 97 % KV priced a short request's pages at 8 s and sent it behind a 700 ms queue (tenants, 12,000 pages).
     */
    static final double MIN_FREE_KV_OWN_PAGES = 0.2;
    /** Time constant of each worker's arrival rate (requests the router placed there). */
    static final double ARRIVAL_RATE_TAU_MS = 5_000.0;
    /**
     * Candidates kept ranked, the best first: the peer spread picks among those near the best (with following instances,
     * five rather than three gave Mooncake a 4 % lower p50 and a 2 % lower p99). One instance decides alike with any.
     */
    static final int TOP_CANDIDATES = 5;
    /** Candidates a decision record shows, the chosen one first. */
    static final int SHOWN_CANDIDATES = 3;
    /**
     * While peer instances place requests too, the choice is one of the top candidates within this many ms of the
     * lowest score, by the instance's hash of the request id: a peer's placements of the last tens of ms are not
     * known yet, and instances scoring a fleet alike send them to the same GPU. Within 30 ms the estimate cannot tell
     * candidates apart (tenants workload: mean absolute error 14 ms, 90 % within 40 ms), while landing behind a peer's
     * unseen prefill costs all of it.
     */
    static final double PEER_SPREAD_MS = 30.0;
    /** How long after following a peer's placement this instance still takes peers to be placing. */
    static final long PEER_ACTIVE_MS = 5_000;
    /** The component holding a candidate's estimated time to first token (the bench compares it with what happened). */
    public static final String TTFT_COMPONENT = "ttft_ms";
    /**
     * The score's components as decision records show them, in this order; the last three are the engine speed the
     * router has learnt for the candidate's pool: ms per step, per thousand prefilled tokens, per million attention pairs.
     */
    private static final String[] COMPONENTS = {TTFT_COMPONENT, "queue_ms", "prefill_ms", "host_load_ms", "decode_ms", "batch_ms",
        "network_ms", "congestion_ms", "replication_ms", "future_gain_ms", "arrivals_per_s", "kv", "kv_penalty_ms", "prefix_blocks",
        "pending_requests", "engine_step_ms", "engine_ms_per_1k_tokens", "engine_ms_per_m_pairs"};

    private final RouterState state;
    private final EngineSpeeds speeds;
    private final TransitDelays transit = new TransitDelays();
    /** By the worker's {@link WorkerIds} id. */
    private WorkerHistory[] histories = new WorkerHistory[0];
    private final PrefixDemand demand;
    private Estimate lastChoice;
    private RouteRequest lastRequest;
    private int lastBestMatch;
    private String delayRegion;
    private long delayOfRegion;
    private long peerPlacedAtMs = Long.MIN_VALUE;

    /** The policy estimating each worker's times with its pool's engine speed as the router has learnt it ({@link EngineSpeeds}). */
    public KvAwarePolicy(RouterState state) {
        this.state = state;
        this.speeds = state.engineSpeeds();
        // recent demand only: a power of two up to a quarter of the prefix index's pairs covers the blocks of the last few time constants
        this.demand = new PrefixDemand(Integer.highestOneBit(Math.max(1024, state.settings().prefixIndexCapacity() / 4)),
                ARRIVAL_RATE_TAU_MS);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** The KV penalty prices a worker's KV, so a holder past the saturation usage stays a candidate. */
    @Override
    public boolean pricesKvUsage() {
        return true;
    }

    /**
     * queue_ms and batch_ms price a worker's queue in the work ahead, so the queue limit holds for the fleet together: a
     * per-worker count would leave out the workers of short prompts, which hold the most requests and the least work.
     */
    @Override
    public boolean pricesQueue() {
        return true;
    }

    @Override
    public Optional<Placement> place(RouteRequest request, List<WorkerSnapshot> candidates, long nowMs) {
        if (candidates.isEmpty()) {
            return Optional.empty();
        }
        delayRegion = null;
        int[] matched = new int[candidates.size()];
        int bestMatch = 0;
        for (int i = 0; i < matched.length; i++) {
            transit.observe(candidates.get(i), nowMs);
            matched[i] = state.cachedBlocks(candidates.get(i), request, nowMs);
            bestMatch = Math.max(bestMatch, matched[i]);
        }
        // Keep only the best few: the spread picks among them, the decision record shows them, nothing else needs a sort.
        Estimate[] top = new Estimate[Math.min(TOP_CANDIDATES, candidates.size())];
        RegionCatalog regions = state.regions();
        boolean byPrice = regions.pricesDiffer();
        long targetMs = regions.ttftTargetMs(LatencyClass.of(request));
        Estimate cheapest = null;
        Estimate[] estimates = new Estimate[matched.length];
        double holderTtftMs = Double.MAX_VALUE;
        int holders = 0;
        for (int i = 0; i < matched.length; i++) {
            estimates[i] = estimate(request, candidates.get(i), matched[i], bestMatch, nowMs);
            if (bestMatch > 0 && matched[i] == bestMatch) {
                holderTtftMs = Math.min(holderTtftMs, estimates[i].ttftMs());
                holders++;
            }
        }
        // after a copy the prefix's next requests are shared by its holders and the copy
        double share = 1.0 / (holders + 1);
        double recentRequests = bestMatch > 0 ? demand.recent(request.hashes()[bestMatch - 1], nowMs) : 0.0;
        for (int i = 0; i < matched.length; i++) {
            Estimate e = estimates[i];
            double ttftIfHeldMs = recentRequests > 0 && e.matched() < bestMatch ? ttftIfHeldMs(e, request, bestMatch) : Double.MAX_VALUE;
            if (ttftIfHeldMs < holderTtftMs) {
                double gainIfEmptyMs = share * recentRequests * (holderTtftMs - ttftIfHeldMs);
                // the cache look-up only for a candidate the gain could bring into the top few
                Estimate last = top[top.length - 1];
                if (byPrice || last == null || e.score() - gainIfEmptyMs <= last.score()) {
                    e = e.withFutureGain(gainIfEmptyMs * freeCacheShare(e.worker(), request));
                }
            }
            insert(top, e, state.tieBreak());
            if (byPrice && e.ttftMs() <= targetMs && e.kvPenaltyMs() == 0 && (cheapest == null || cheaper(e, cheapest, regions, state.tieBreak()))) {
                cheapest = e;
            }
        }
        Estimate best = cheapest != null ? cheapest : spreadFromPeers(top, request, nowMs);
        lastChoice = best;
        lastRequest = request;
        lastBestMatch = bestMatch;
        int partition = state.leastPendingPartition(best.worker(), nowMs);
        int shownCount = Math.min(SHOWN_CANDIDATES, top.length);
        List<ScoredCandidate> shown = new ArrayList<>(shownCount);
        shown.add(new ScoredCandidate(best.worker().workerId(), best.worker().region(), partition, best.score(), best.components()));
        for (Estimate e : top) {
            if (e != best && shown.size() < shownCount) {
                shown.add(new ScoredCandidate(e.worker().workerId(), e.worker().region(), e.worker().ownedPartitions().get(0),
                        e.score(), e.components()));
            }
        }
        String cached = best.matched() + " prefix blocks cached";
        String reason = cheapest != null
                ? "cheapest region " + best.worker().region() + " meeting the " + targetMs + " ms TTFT target: estimated TTFT "
                        + Math.round(best.ttftMs()) + " ms; " + cached
                : (byPrice ? "no region meets the " + targetMs + " ms TTFT target; " : "")
                        + (best == top[0] ? "lowest estimated TTFT with congestion: "
                                : "within " + Math.round(PEER_SPREAD_MS) + " ms of the lowest score, spread from peer instances' "
                                        + "placements: estimated TTFT with congestion ")
                        + Math.round(best.ttftMs()) + " ms + "
                        + Math.round(best.congestionMs() + best.replicationMs()) + " ms"
                        + (best.futureGainMs() > 0 ? " - " + Math.round(best.futureGainMs()) + " ms saved for the prefix's next requests" : "")
                        + "; " + cached;
        return Optional.of(new Placement(best.worker().workerId(), best.worker().region(), partition, best.score(),
                best.matched(), shown, reason));
    }

    /**
     * {@code top[0]}; while peers place too, one of the top candidates {@link #closeTo} it, chosen by this instance's
     * hash of the request id.
     */
    private Estimate spreadFromPeers(Estimate[] top, RouteRequest request, long nowMs) {
        if (peerPlacedAtMs <= nowMs - PEER_ACTIVE_MS) {
            return top[0];
        }
        int near = 0;
        for (Estimate e : top) {
            near += closeTo(e, top[0]) ? 1 : 0;
        }
        int pick = state.tieBreak().pick(request.requestId(), near);
        for (Estimate e : top) {
            if (closeTo(e, top[0]) && pick-- == 0) {
                return e;
            }
        }
        return top[0]; // not reached: pick < near
    }

    /**
     * Within {@link #PEER_SPREAD_MS} of {@code best} and holding as much of the prompt: a prefix is not spread away
     * from its holder, which would split its next requests' cache too.
     */
    private static boolean closeTo(Estimate e, Estimate best) {
        return e != null && e.score() <= best.score() + PEER_SPREAD_MS && e.matched() == best.matched();
    }

    /** The accepted placement's work joins that worker's backlog and arrival rate, and the request its prefix's demand. */
    @Override
    public void onPlaced(RouteRequest request, Placement placement, long nowMs) {
        Estimate chosen = lastChoice;
        boolean estimated = chosen != null && lastRequest == request && chosen.worker().workerId().equals(placement.workerId());
        int worker = estimated ? chosen.worker().denseId() : WorkerIds.of(placement.workerId());
        account(request, worker, nowMs, estimated ? chosen.delayMs() : 0, estimated ? chosen.workMs() : 0,
                lastRequest == request ? lastBestMatch : 0);
        lastChoice = null;
        lastRequest = null;
    }

    /**
     * A peer's placement joins the worker's backlog and arrival rate as this policy's own would,
     * with the work this policy estimates for it there, and the request its prefix's demand.
     */
    @Override
    public void onPeerPlaced(RouteRequest request, WorkerSnapshot worker, long decidedAtMs) {
        peerPlacedAtMs = Math.max(peerPlacedAtMs, decidedAtMs);
        int matched = state.cachedBlocks(worker, request, decidedAtMs);
        Estimate e = estimate(request, worker, matched, matched, decidedAtMs);
        account(request, worker.denseId(), decidedAtMs, e.delayMs(), e.workMs(), matched);
    }

    /** A placement at {@code atMs} joins the worker's history, and its first {@code heldBlocks} blocks their demand. */
    private void account(RouteRequest request, int worker, long atMs, long delayMs, double workMs, int heldBlocks) {
        history(worker).placed(atMs, atMs + delayMs, workMs, request.promptTokens() + request.maxTokens() / 2.0);
        demand.add(request.hashes(), heldBlocks, atMs);
    }

    /** Cheaper region first, then the lower score, then the instance's tie-break. */
    private static boolean cheaper(Estimate e, Estimate other, RegionCatalog regions, TieBreak tieBreak) {
        int byCost = Double.compare(regions.costPerMillionTokens(e.worker().region()),
                regions.costPerMillionTokens(other.worker().region()));
        return byCost < 0 || (byCost == 0 && e.before(other, tieBreak));
    }

    /** Inserts {@code e} into the ascending array {@code top} if it ranks (score, then tie-break) among its entries. */
    private static void insert(Estimate[] top, Estimate e, TieBreak tieBreak) {
        int i = top.length - 1;
        if (top[i] != null && !e.before(top[i], tieBreak)) {
            return;
        }
        while (i > 0 && (top[i - 1] == null || e.before(top[i - 1], tieBreak))) {
            top[i] = top[i - 1];
            i--;
        }
        top[i] = e;
    }

    Estimate estimate(RouteRequest request, WorkerSnapshot worker, int matched, int bestMatch, long nowMs) {
        RoutingSettings settings = state.settings();
        TtftModel model = speeds.modelFor(worker);
        PendingLoad pending = state.pending(worker, nowMs);
        int cached = request.cachedTokens(matched);
        int uncached = request.uncachedTokens(matched);
        long delay = delayMs(worker.region());
        WorkerHistory history = history(worker.denseId());
        // Every decoding sequence attends to its whole context, shared prefix blocks included, so
        // the KV in use undercounts it when sequences share a prefix.
        long contextTokens = Math.max(Math.max(worker.kvBlocksUsed() * worker.kvBlockTokens(), worker.observed().decodingContextTokens()),
                (long) (worker.runningDecode() * history.contextTokens()));
        double decodePerStep = model.decodeMsPerStep(worker.runningDecode() + pending.requests(), contextTokens);
        long reported = queuedPrefillTokens(worker);
        double reportedMs = reported <= 0 ? 0.0
                : queuedPrefillMs(worker, reported, model) + model.steps(reported) * decodePerStep;
        long arrivesAtMs = nowMs + delay;
        double backlogMs = history.backlogMs(worker.observedAtMs(), reportedMs, nowMs, arrivesAtMs);
        double ownBacklogMs = history.ownBacklogMs(arrivesAtMs);
        if (worker.runningPrefill() == 0 || worker.queuedPrefillAttention() > 0) {
            // What the router's own count may add to the report is the step in progress, and while a prefill runs that
            // the report does not price, the attention its remaining chunks pay to the part computed; beyond that, more
            // is the count's own drift (each request's decode share is counted whole though prompts share steps).
            ownBacklogMs = Math.min(ownBacklogMs, backlogMs + model.fullStepMs() + decodePerStep);
        }
        double queueMs = Math.max(backlogMs, ownBacklogMs);
        if (queueMs <= 0 && worker.running() + pending.requests() > 0) {
            queueMs = model.stepMs(decodePerStep) / 2.0;
        }
        double prefillMs = model.prefillMs(uncached, cached);
        int hostOnly = state.hostOnlyBlocks(worker, request, matched);
        // cached tokens of the host-only blocks, counted as the matched prefix's last ones (what a GPU evicts first)
        double hostLoadMs = hostOnly == 0 ? 0.0 : model.hostLoadMs(cached - request.cachedTokens(matched - hostOnly));
        double decodeMs = model.steps(uncached) * decodePerStep;
        long ahead = (long) worker.running() + worker.waiting() + pending.requests();
        long beyondLimit = ahead + 1 - worker.maxRunning();
        double batchMs = beyondLimit > 0 ? beyondLimit * slotWaitMs(worker) : 0.0;
        long neededBlocks = settings.kvBlocksNeeded(request, matched, worker.kvBlockTokens());
        double kvAfter = CandidateFilter.kvUsageWith(worker, pending.kvBlocks() + neededBlocks);
        int duplicated = request.cachedTokens(bestMatch) - cached;
        // the copied prefix is part of the uncached prompt, so what is left is the request's own pages
        double kvPenaltyMs = kvAfter > settings.kvHeadroom()
                ? kvPagesMs(model, (int) (neededBlocks * worker.kvBlockTokens() - duplicated), kvAfter, MIN_FREE_KV_OWN_PAGES) : 0.0;
        double networkMs = 2.0 * delay;
        // A prefill longer than one engine step holds up later arrivals for all of it, but charging
        // that in full would push the longest prompts (the tail) away from where they are fastest.
        double blockingMs = Math.min(prefillMs + hostLoadMs + decodeMs, model.fullStepMs());
        double arrivalsPerMs = history.arrivalsPerMs(nowMs);
        double congestionMs = queueMs + batchMs + arrivalsPerMs * blockingMs * blockingMs
                + arrivalsPerMs * decodeDragMs(request, model) * (queueMs + prefillMs + decodeMs);
        double replicationMs = duplicated > 0 ? kvPagesMs(model, duplicated, kvAfter, MIN_FREE_KV) : 0.0;
        return new Estimate(worker, model, matched, pending.requests(), delay, queueMs, prefillMs, hostLoadMs, decodeMs, batchMs,
                kvAfter, kvPenaltyMs, networkMs, congestionMs, replicationMs, arrivalsPerMs, decodePerStep, 0.0);
    }

    /**
     * Uncached prompt tokens the worker still has to prefill: as it reports them when it can see inside its engine
     * (the simulator's white-box telemetry), else the prompt tokens it owes requests it sent without a first token,
     * less the share its prefix cache has been serving (which of them are cached is not known until they finish).
     */
    static long queuedPrefillTokens(WorkerSnapshot worker) {
        if (worker.queuedPrefillTokens() > 0) {
            return worker.queuedPrefillTokens();
        }
        double hitRate = Double.isFinite(worker.prefixHitRate()) ? Math.max(0.0, Math.min(1.0, worker.prefixHitRate())) : 0.0;
        return Math.round(worker.observed().owedPrefillTokens() * (1.0 - hitRate));
    }

    /**
     * Prefill time of the worker's queue of {@code tokens}: with the attention work it reports, that; without (a
     * worker that cannot see it), as if each queued prompt had nothing in KV and the average length.
     */
    private static double queuedPrefillMs(WorkerSnapshot worker, long tokens, TtftModel model) {
        if (worker.queuedPrefillAttention() > 0) {
            return model.queuedPrefillMsOfAttention(tokens, worker.queuedPrefillAttention());
        }
        int prompts = Math.max(worker.waiting() + worker.runningPrefill(), worker.observed().owedPrefillRequests());
        return model.queuedPrefillMs(tokens, (double) tokens / Math.max(1, prompts));
    }

    /**
     * The price of {@code tokens} tokens' KV pages on a worker whose KV usage after the placement is
     * {@code kvUsage}: a copy's price (half their prefill) / (1 - that usage)^2, the free share at least
     * {@code minFree}. Without the divisor, copies made while queues are long fill the fleet's KV
     * with duplicates of the same prefixes until no worker can admit more (150 tenants on 6 GPUs at
     * 36 req/s: a tenant's requests on 3.6 GPUs on average and a p99 TTFT of 11 s, against 1.2 GPUs
     * and 381 ms with it).
     */
    private static double kvPagesMs(TtftModel model, int tokens, double kvUsage, double minFree) {
        double free = Math.max(minFree, 1.0 - kvUsage);
        return DUPLICATION_WEIGHT * model.prefillMs(tokens, 0) / (free * free);
    }

    /**
     * Its answer length (the average, at most its max tokens) * the decode work one more sequence
     * adds to a step. While it decodes, requests arrive there (arrival rate * answer * step time of
     * them) and each is slowed by that work on every step it waits for its first token (its wait /
     * step time): the step time cancels, leaving arrival rate * this * their wait. 0 before any
     * result tells how long answers are.
     */
    private double decodeDragMs(RouteRequest request, TtftModel model) {
        double answerTokens = Math.min(state.outputLengths().meanTokens(), request.maxTokens());
        if (!(answerTokens > 0)) {
            return 0.0;
        }
        return answerTokens * model.decodeMsPerStep(1, (long) (request.promptTokens() + answerTokens / 2.0));
    }

    /**
     * How soon a worker with every batch slot taken frees one: it finishes a sequence every
     * (average answer length / output tokens per second).
     */
    private double slotWaitMs(WorkerSnapshot worker) {
        double answerTokens = state.outputLengths().meanTokens();
        return answerTokens > 0 && worker.tokensPerSecond() > 0 ? 1000.0 * answerTokens / worker.tokensPerSecond() : SLOT_WAIT_MS;
    }

    /**
     * What the request's start on {@code e}'s worker would be if it held the prefix the best
     * holder holds; computed only for a candidate a future gain may apply to.
     */
    private static double ttftIfHeldMs(Estimate e, RouteRequest request, int bestMatch) {
        int uncachedIfHeld = request.uncachedTokens(bestMatch);
        return e.ttftWithPrefillMs(e.model().prefillMs(uncachedIfHeld, request.cachedTokens(bestMatch)),
                e.model().steps(uncachedIfHeld) * e.decodePerStepMs());
    }

    /**
     * Share of the worker's GPU KV cache not holding any prefix, from its KV events (0 unless the
     * index holds its whole cache: {@link KvEventIndex#complete}); blocks it reported offloaded to
     * host memory take no GPU pages.
     * A copy into a full cache evicts another prefix, whose next requests lose about what the
     * copied prefix's gain: only a copy into free space gains outright.
     */
    private double freeCacheShare(WorkerSnapshot worker, RouteRequest request) {
        double capacity = (double) worker.kvBlocksTotal() * worker.kvBlockTokens();
        int blocks = capacity <= 0 ? -1 : state.kvEventIndex().gpuBlockCountIfComplete(worker.workerId());
        if (blocks < 0) {
            return 0.0;
        }
        double held = (double) blocks * request.blockTokens();
        return Math.max(0.0, 1.0 - held / capacity);
    }

    /** The history of the worker whose {@link WorkerIds} id is {@code id}. */
    private WorkerHistory history(int id) {
        if (id >= histories.length) {
            histories = Arrays.copyOf(histories, Math.max(id + 1, Math.max(16, histories.length * 2)));
        }
        WorkerHistory history = histories[id];
        if (history == null) {
            RoutingSettings settings = state.settings();
            history = new WorkerHistory(ARRIVAL_RATE_TAU_MS, settings.ledgerGraceMs(), settings.ledgerMaxAgeMs());
            histories[id] = history;
        }
        return history;
    }

    /**
     * The region's one-way delay: from the catalog when it lists the region, else learnt from
     * telemetry. Remembered for the last region asked: candidates come grouped by region.
     */
    private long delayMs(String region) {
        if (!region.equals(delayRegion)) {
            RegionProfile profile = state.regions().profile(region).orElse(null);
            delayOfRegion = profile != null ? profile.delayMs() : transit.delayMs(region);
            delayRegion = region;
        }
        return delayOfRegion;
    }

    /** One candidate's estimated TTFT and score, by component. */
    record Estimate(WorkerSnapshot worker, TtftModel model, int matched, int pendingRequests, long delayMs, double queueMs, double prefillMs,
                    double hostLoadMs, double decodeMs, double batchMs, double kvAfter, double kvPenaltyMs, double networkMs,
                    double congestionMs, double replicationMs, double arrivalsPerMs, double decodePerStepMs, double futureGainMs) {

        /** Estimated time to first token on this worker. */
        double ttftMs() {
            return ttftWithPrefillMs(prefillMs, decodeMs) + hostLoadMs;
        }

        /**
         * The same estimate had this request's prefill (and the decode its steps carry) taken these
         * times, and nothing to load from host memory.
         */
        double ttftWithPrefillMs(double prefillMs, double decodeMs) {
            return queueMs + prefillMs + decodeMs + batchMs + networkMs;
        }

        double score() {
            return ttftMs() + kvPenaltyMs + congestionMs + replicationMs - futureGainMs;
        }

        Estimate withFutureGain(double gainMs) {
            return new Estimate(worker, model, matched, pendingRequests, delayMs, queueMs, prefillMs, hostLoadMs, decodeMs, batchMs, kvAfter,
                    kvPenaltyMs, networkMs, congestionMs, replicationMs, arrivalsPerMs, decodePerStepMs, gainMs);
        }

        /** GPU time this request's prefill takes there, its host loads and its steps' decode share included. */
        double workMs() {
            return prefillMs + hostLoadMs + decodeMs;
        }

        boolean before(Estimate other, TieBreak tieBreak) {
            int byScore = Double.compare(score(), other.score());
            return byScore < 0 || (byScore == 0 && tieBreak.before(worker.workerId(), other.worker.workerId()));
        }

        Map<String, Double> components() {
            return new ScoreComponents(COMPONENTS, ttftMs(), queueMs, prefillMs, hostLoadMs, decodeMs, batchMs, networkMs, congestionMs,
                    replicationMs, futureGainMs, arrivalsPerMs * 1000.0, kvAfter, kvPenaltyMs, matched, pendingRequests, model.t0Ms(),
                    model.aMsPerToken() * 1e3, model.kMsPerTokenPair() * 1e6);
        }
    }
}
