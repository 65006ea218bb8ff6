package io.kvroute.router.topology.internal;

import io.kvroute.router.admission.Rejection;
import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.router.routing.FleetView;
import io.kvroute.router.routing.PeerPlacements;
import io.kvroute.router.routing.Placement;
import io.kvroute.router.routing.RouteRequest;
import io.kvroute.router.routing.Router;
import io.kvroute.router.routing.RoutingResult;
import io.kvroute.router.routing.WorkerSnapshot;
import io.kvroute.schemas.topics.CancelHeaders;
import io.kvroute.schemas.topics.DecisionHeaders;
import io.kvroute.schemas.topics.RunAttempt;
import io.kvroute.schemas.v1.CancelRequest;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.RoutingDecision;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.WorkerTelemetry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Places valid requests: candidates from the {@link FleetView} the telemetry global-store
 * processor keeps up to date (seeded from the global store when the task starts), then the
 * configured policy; a decision's cost does not grow with the fleet.
 * A placed request goes to its region's dispatch topic on the chosen partition, with a
 * DISPATCHED decision. A request that fits nowhere yet (no telemetry, every worker saturated)
 * is parked in the persistent {@value TopologyNames#PARKED_STORE} store and retried on a
 * wall-clock punctuator; if its deadline passes while parked it gets an EXPIRED terminal, and
 * after {@code parkedMaxMs} a REJECTED one (outcome NO_CAPACITY).
 *
 * <p>While anything is parked, a newcomer is parked too and a
 * {@link io.kvroute.router.routing.fairness.FairQueue} decides who goes next: INTERACTIVE before
 * BATCH, then the tenant with the smallest virtual token counter (VTC), each tenant's own requests
 * in arrival order; so a light tenant's request passes a heavy tenant's backlog instead of
 * queueing behind it. A tenant's requests for another model or other allowed regions are a
 * separate flow with its own counter, so one that fits nowhere (its only region is full) does not
 * hold those that could run elsewhere. Serving charges the tenant prompt + max tokens; the {@link ResultTracker} corrects the
 * charge by the actual usage when the result arrives ({@link FairShares}). The counters are in
 * memory and start at 0 after a restart.
 *
 * <p>A request whose id is in the {@value TopologyNames#CANCELLATIONS_STORE} global store when it arrives, or when its
 * parked turn comes, gets a CANCELLED terminal (attempt 1, sequence 0) and a REJECTED decision
 * saying it was cancelled, and is never dispatched.
 *
 * <p>Every dispatched request stays in the persistent {@value TopologyNames#IN_FLIGHT_STORE} store
 * until its result is on the responses topic ({@link ResultTracker}). When a region goes silent
 * (no telemetry from any of its workers for the re-placement patience), its in-flight requests
 * are placed again elsewhere among their allowed regions with the next dispatch attempt; in the
 * same transaction a {@code CancelRequest} with {@code supersedesBelowAttempt} tells the silent
 * region's workers, when they come back, to drop the older attempt without a result. A request
 * that has nowhere else to go waits for its region, or past its deadline gets EXPIRED (with an
 * attempt that outranks any run of the old one).
 *
 * <p>The {@link Router} (policy, pending-load ledger, prefix index) is shared by every task of
 * one application instance, so the ledger sees all of this instance's placements whichever
 * requests partition they came from; calls into it are serialised on the router. It lives in
 * memory and starts empty after a restart: it is not rebuilt from the decisions topic. It fills
 * again from new placements, and telemetry soon reflects the old ones. Router instances on
 * other machines have their own routers; each follows the others' DISPATCHED decisions
 * ({@link PeerPlacements}, read from the decisions topic as they commit) before its next decision,
 * so that none sees only its own share of a burst or of a tenant's prefix.
 */
public final class RoutingProcessor implements Processor<String, Object, Object, Object> {
    private static final Logger LOG = LoggerFactory.getLogger(RoutingProcessor.class);
    /** The dispatch attempt of a request answered before it was ever dispatched. */
    private static final int NOT_DISPATCHED = 0;
    /**
     * A request handed back this many times (its dispatch attempt, which re-placements from silent
     * regions also raise) is answered FAILED at the next hand-back: every pool it met was limited.
     */
    static final int MAX_DISPATCH_ATTEMPTS_HANDED_BACK = 4;
    /**
     * How long a parked hand-back keeps out the worker that handed it back: until that worker's
     * telemetry, which carries its cool-down (sent every ~250 ms and on change), has surely arrived.
     */
    static final long HANDED_BACK_EXCLUSION_MS = 5_000;

    private final Router router;
    private final PeerPlacements peers;
    private final RequestReader requests;
    private final String routerInstance;
    private final byte[] routerInstanceHeader;
    private final String policyName;
    private final String telemetryTopic;
    private final Deserializer<WorkerTelemetry> telemetryDeserializer;
    private final long retryMs;
    private final long parkedMaxMs;
    private final long parkedMaxCount;
    private final RouterMetrics metrics;
    private final FleetView fleet;
    private final Replacement replacement;
    private final FairShares fairShares;
    private final boolean releaseQuotas;
    private final Map<String, String> whyNotPlaced = new HashMap<>();
    /** Parked key of a handed-back request → the worker it must not go back to, and until when (in memory only). */
    private final Map<String, RefusedBy> refusedBy = new HashMap<>();
    private FairShares.TaskQueue queue;
    private ProcessorContext<Object, Object> context;
    private TelemetryView telemetry;
    private KeyValueStore<String, InferenceRequest> parked;
    private KeyValueStore<String, DispatchedRequest> inFlight;
    /** Regions of the requests in {@link #inFlight} (and perhaps more): the ones whose silence matters. */
    private final Set<String> regionsDispatchedTo = new HashSet<>();
    private ReadOnlyKeyValueStore<String, byte[]> cancellations;
    private Cancellable retry;
    private Cancellable replacementCheck;
    /** When this task (re)started, on the wall clock: it re-places nothing until it has run for the patience. */
    private long startedAtMs;
    private Cancellable forgetCheck;
    private long nextSequence;
    /** The parked requests' ids, tenants, deadlines and parking times, so a pass reads back only those it acts on; its size is how many wait. */
    private final ParkedIndex parkedIndex = new ParkedIndex();
    private CommitPacing commitPacing = CommitPacing.NONE;
    private Cancellable commitCheck;
    /** Whether this task wrote output since it last asked for a commit. */
    private boolean outputSinceAsk;
    /** How long the last request this task routed had waited: a backlog stops the asks. */
    private long lastWaitedMs;

    public RoutingProcessor(Router router, String telemetryTopic,
                            Deserializer<WorkerTelemetry> telemetryDeserializer, Parking parking,
                            Replacement replacement, RouterMetrics metrics, FleetView fleet) {
        this(router, telemetryTopic, telemetryDeserializer, parking, replacement, metrics, fleet, new FairShares(), false);
    }

    /**
     * @param releaseQuotas whether requests come through admission: then every request this processor answers
     *                      without running it returns its quota reservation ({@link QuotaSettlement#release})
     */
    public RoutingProcessor(Router router, String telemetryTopic,
                            Deserializer<WorkerTelemetry> telemetryDeserializer, Parking parking,
                            Replacement replacement, RouterMetrics metrics, FleetView fleet, FairShares fairShares,
                            boolean releaseQuotas) {
        this(router, telemetryTopic, telemetryDeserializer, parking, replacement, metrics, fleet, fairShares, releaseQuotas,
                PeerPlacements.none(), "", RequestReader.NONE);
    }

    /**
     * @param peers          other router instances' placements, followed before each decision
     * @param routerInstance this instance's id, written in its decision records for the others
     * @param requests       reads a request record back; unless {@link RequestReader#NONE}, in-flight entries keep no
     *                       prompt ({@link InFlightEntries})
     */
    public RoutingProcessor(Router router, String telemetryTopic,
                            Deserializer<WorkerTelemetry> telemetryDeserializer, Parking parking,
                            Replacement replacement, RouterMetrics metrics, FleetView fleet, FairShares fairShares,
                            boolean releaseQuotas, PeerPlacements peers, String routerInstance, RequestReader requests) {
        this.requests = requests;
        this.peers = peers;
        this.routerInstance = routerInstance;
        this.routerInstanceHeader = DecisionHeaders.instanceValue(routerInstance);
        this.fairShares = fairShares;
        this.releaseQuotas = releaseQuotas;
        this.fleet = fleet;
        this.replacement = replacement;
        this.router = router;
        this.policyName = router.policy().name();
        this.telemetryTopic = telemetryTopic;
        this.telemetryDeserializer = telemetryDeserializer;
        this.retryMs = parking.retryMs();
        this.parkedMaxMs = parking.maxMs();
        this.parkedMaxCount = parking.maxCount();
        this.metrics = metrics;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
        this.telemetry = new TelemetryView(context.getStateStore(TopologyNames.TELEMETRY_STORE), telemetryTopic, telemetryDeserializer);
        this.parked = context.getStateStore(TopologyNames.PARKED_STORE);
        this.inFlight = context.getStateStore(TopologyNames.IN_FLIGHT_STORE);
        try (KeyValueIterator<String, DispatchedRequest> it = inFlight.all()) {
            it.forEachRemaining(entry -> regionsDispatchedTo.add(entry.value.getRegion()));
        }
        this.cancellations = context.getStateStore(TopologyNames.CANCELLATIONS_STORE);
        fleet.putAllIfNewer(telemetry.snapshots());
        queue = fairShares.open(context.taskId());
        try (KeyValueIterator<String, InferenceRequest> it = parked.all()) {
            while (it.hasNext()) {
                KeyValue<String, InferenceRequest> entry = it.next();
                ParkedKey key = ParkedKey.decode(entry.key);
                nextSequence = Math.max(nextSequence, key.sequence() + 1);
                enqueue(entry.key, entry.value, key.parkedAtMs());
            }
        }
        metrics.parkedChanged(parkedIndex.size());
        if (parkedIndex.size() > 0) {
            LOG.info("task {} resumes with {} parked requests", context.taskId(), parkedIndex.size());
        }
        retry = context.schedule(Duration.ofMillis(retryMs), PunctuationType.WALL_CLOCK_TIME, ts -> retryParked());
        if (commitPacing.paces()) {
            commitCheck = context.schedule(Duration.ofMillis(commitPacing.caughtUpMs()), PunctuationType.WALL_CLOCK_TIME,
                    ts -> askForCommit(context.currentSystemTimeMs()));
        }
        startedAtMs = context.currentSystemTimeMs();
        replacementCheck = context.schedule(Duration.ofMillis(replacement.checkMs()), PunctuationType.WALL_CLOCK_TIME,
                ts -> replaceFromSilentRegions());
        forgetCheck = context.schedule(Duration.ofMillis(replacement.forgetCheckMs()), PunctuationType.WALL_CLOCK_TIME,
                ts -> forgetAbandoned());
    }

    /**
     * How this processor asks for commits ({@link CommitPacing}); without, Streams' interval alone decides. Output of
     * punctuations (parked requests placed, re-placements) goes with the next ask or at Streams' interval.
     */
    public RoutingProcessor pacingCommits(CommitPacing pacing) {
        this.commitPacing = pacing;
        return this;
    }

    /** A request from intake (or admission), or a worker's {@link HandBack} from the result tracker. */
    @Override
    public void process(Record<String, Object> record) {
        long now = context.currentSystemTimeMs();
        handle(record, now);
        outputSinceAsk = true;
        lastWaitedMs = now - record.timestamp();
        askForCommit(now);
    }

    /**
     * Asks Streams to commit soon when {@link CommitPacing} says so for output of this task: on each request, and on a
     * timer for the last requests before a pause (else they would wait for Streams' longer interval).
     */
    private void askForCommit(long now) {
        if (outputSinceAsk && commitPacing.askNow(now, lastWaitedMs)) {
            context.commit();
            outputSinceAsk = false;
        }
    }

    private void handle(Record<String, Object> record, long now) {
        if (record.value() instanceof HandBack handBack) {
            handBack(handBack, now);
            return;
        }
        InferenceRequest request = (InferenceRequest) record.value();
        if (isCancelled(request)) {
            cancel(request, "cancelled before it was dispatched", NOT_DISPATCHED, now);
            return;
        }
        // while anything waits, newcomers queue behind it: freed capacity goes in arrival order
        if (parkedIndex.size() == 0 && tryPlace(request, sourceOfCurrentRecord(), 1, "", fleet, now) == null) {
            return;
        }
        if (parkedIndex.size() >= parkedMaxCount) {
            refuse(request, "the router already holds " + parkedIndex.size() + " requests waiting for capacity", now);
            return;
        }
        park(request, NOT_DISPATCHED, now);
    }

    /** Where the request being processed was read from, when in-flight entries are to keep only that (else null). */
    private RequestSource sourceOfCurrentRecord() {
        if (!requests.readsBack()) {
            return null;
        }
        return context.recordMetadata().map(m -> new RequestSource(m.topic(), m.partition(), m.offset())).orElse(null);
    }

    /**
     * Routes one request as dispatch {@code attempt} over {@code workers}; null if it was dispatched, else why not.
     * {@code source}: where the request record is (null if unknown); the in-flight entry then keeps no prompt, and a
     * request kept so ({@link InFlightEntries}) gets its prompt back from there once placed.
     *
     * @throws RequestReader.UnreadableRequestException when a request kept without its prompt was placed but its record
     *         cannot be read back (the placement is then not made; the router's ledger counts it until it decays)
     */
    private String tryPlace(InferenceRequest request, RequestSource source, int attempt, String reasonPrefix, FleetView workers,
                            long now) {
        RouteRequest routeRequest = Conversions.toRouteRequest(request);
        long started = System.nanoTime();
        RoutingResult result;
        synchronized (router) {
            peers.drainInto(router, fleet::get);
            result = router.route(routeRequest, workers, now);
        }
        metrics.decisionTook(Duration.ofNanos(System.nanoTime() - started));
        metrics.candidatesConsidered(result.candidates().candidates().size());
        if (result.placement().isEmpty()) {
            LOG.debug("no placement for {} yet: {}", request.getRequestId(), result.reason());
            return result.reason();
        }
        Placement placement = result.placement().get();
        result.candidates().candidates().stream().filter(w -> w.workerId().equals(placement.workerId())).findFirst()
                .ifPresent(w -> metrics.telemetryAge(w.ageMs(now)));
        String id = request.getRequestId();
        InferenceRequest whole = request.getPrompt() == null && request.getMessages() == null && source != null
                ? InFlightEntries.withContent(request, requests.read(source, id)) : request;
        DispatchedRequest dispatched = Conversions.dispatched(whole, placement, policyName, now);
        dispatched.setAttempt(attempt);
        RoutingDecision decision = Conversions.dispatchedDecision(request, routeRequest, placement, policyName,
                result.candidates().candidates().size(), routerInstance, now);
        decision.setAttempt(attempt);
        decision.setReason(reasonPrefix + decision.getReason());
        context.forward(new Record<Object, Object>(id, dispatched, now, new RecordHeaders()), TopologyNames.DISPATCH_SINK);
        context.forward(new Record<Object, Object>(id, decision, now,
                DecisionHeaders.markInstance(new RecordHeaders(), routerInstanceHeader)), TopologyNames.DECISIONS_SINK);
        inFlight.put(id, source == null ? dispatched : InFlightEntries.slim(dispatched, source));
        regionsDispatchedTo.add(placement.region());
        metrics.routed(placement.region(), policyName);
        return null;
    }

    /** Parks a request to be placed as {@code dispatchAttempt} (or as attempt 1 if it was never dispatched). */
    private String park(InferenceRequest request, int dispatchAttempt, long now) {
        String key = new ParkedKey(nextSequence++, now, dispatchAttempt).encode();
        parked.put(key, request);
        enqueue(key, request, now);
        metrics.parkedChanged(1);
        return key;
    }

    /** A worker a parked request was handed back by, left out of its placements until {@code untilMs}. */
    private record RefusedBy(String workerId, long untilMs) {
    }

    private void enqueue(String key, InferenceRequest request, long parkedAtMs) {
        queue.add(key, request);
        parkedIndex.add(key, request.getRequestId(), request.getTenant(), parkedAtMs, request.getDeadlineMs());
    }

    /** Answers parked requests that were cancelled, expired or waited too long, then serves the rest in fair order. */
    private void retryParked() {
        // an instance whose partitions are quiet still keeps up with the others' placements
        synchronized (router) {
            peers.drainInto(router, fleet::get);
        }
        if (parkedIndex.size() == 0) {
            return;
        }
        long now = context.currentSystemTimeMs();
        List<String> done = new ArrayList<>();
        // a handed-back request's answer carries its next attempt, so it outranks the run handed back
        for (ParkedIndex.Entry entry : cancelledWhileParked()) {
            settleParked(entry, done, (request, attempt) -> cancel(request, "cancelled while waiting for capacity", attempt, now));
        }
        for (ParkedIndex.Entry entry : parkedIndex.deadlineAtOrBefore(now)) {
            settleParked(entry, done, (request, attempt) -> expire(request, "deadline " + entry.deadlineMs()
                    + " passed while waiting for capacity (now " + now + ")", attempt, now));
        }
        for (ParkedIndex.Entry entry : parkedIndex.parkedAtOrBefore(now - parkedMaxMs)) {
            settleParked(entry, done, (request, attempt) -> giveUp(request, whyNotPlaced.getOrDefault(entry.key(), "never its tenant's turn"),
                    attempt, now));
        }
        Map<String, String> placedIds = new HashMap<>();
        // placements within one pass only add load: a request that did not fit is not tried again in it
        Set<String> didNotFit = new HashSet<>();
        // One fleet for the whole pass: telemetry arriving mid-pass (another thread) would otherwise
        // give capacity to the requests after one that just did not fit, ahead of it (an interactive
        // request was dispatched after two batch ones that way).
        FleetView passFleet = fleet.copy();
        // the few workers that handed a parked request back, each left out of one more copy
        Map<String, FleetView> passFleetWithout = new HashMap<>();
        while (true) {
            Optional<String> served = queue.serveNext(key -> {
                if (didNotFit.contains(key)) {
                    return false;
                }
                InferenceRequest request = parked.get(key);
                RefusedBy refused = refusedBy.get(key);
                FleetView workers = refused == null || refused.untilMs() <= now ? passFleet
                        : passFleetWithout.computeIfAbsent(refused.workerId(), passFleet::copyWithout);
                String notPlaced = tryPlace(request, null, Math.max(1, ParkedKey.decode(key).dispatchAttempt()), "", workers, now);
                if (notPlaced != null) {
                    whyNotPlaced.put(key, notPlaced);
                    didNotFit.add(key);
                } else {
                    placedIds.put(key, request.getRequestId());
                }
                return notPlaced == null;
            }, placedIds::get);
            if (served.isEmpty()) {
                break;
            }
            done.add(served.get());
        }
        for (String key : done) {
            parked.delete(key);
            parkedIndex.remove(key);
            whyNotPlaced.remove(key);
            refusedBy.remove(key);
        }
        metrics.parkedChanged(-done.size());
        outputSinceAsk |= !done.isEmpty();
    }


    /**
     * The parked requests with a cancel in the cancellations store: looked up from the smaller side, the cancels (usually
     * few) or the parked requests, so a pass does not read every parked request's cancel when there are none.
     */
    private List<ParkedIndex.Entry> cancelledWhileParked() {
        List<ParkedIndex.Entry> found = new ArrayList<>();
        if (cancellations.approximateNumEntries() < parkedIndex.size()) {
            try (KeyValueIterator<String, byte[]> it = cancellations.all()) {
                while (it.hasNext()) {
                    KeyValue<String, byte[]> cancel = it.next();
                    addCancelled(found, cancel.key, cancel.value);
                }
            }
        } else {
            for (String requestId : parkedIndex.requestIds()) {
                addCancelled(found, requestId, cancellations.get(requestId));
            }
        }
        return found;
    }

    /** Adds the parked entries of {@code requestId} that the kept {@code cancel} (null: none) cancels. */
    private void addCancelled(List<ParkedIndex.Entry> found, String requestId, byte[] cancel) {
        for (ParkedIndex.Entry entry : parkedIndex.ofRequest(requestId)) {
            if (CancelledEntry.cancels(cancel, entry.tenant())) {
                found.add(entry);
            }
        }
    }

    /** Reads a parked request back and answers it by {@code answer}, with the attempt its key carries; it leaves the queue and the index. */
    private void settleParked(ParkedIndex.Entry entry, List<String> done, java.util.function.ObjIntConsumer<InferenceRequest> answer) {
        if (parkedIndex.get(entry.key()) == null) {
            return; // settled already in this pass (cancelled, then also past its deadline)
        }
        InferenceRequest request = parked.get(entry.key());
        answer.accept(request, ParkedKey.decode(entry.key()).dispatchAttempt());
        done.add(entry.key());
        queue.remove(entry.key(), request);
        parkedIndex.remove(entry.key());
    }

    /**
     * Re-places the in-flight requests of regions silent for longer than the patience. A region
     * none of whose workers has ever reported counts as silent. A task that has just (re)started
     * waits the patience first: until it has read the results written while it was down, its store
     * still holds requests that are finished (a chaos run re-placed one whose result had been on the
     * responses topic for 26 s, 8 s after the router's restart, before its task had read it).
     */
    private void replaceFromSilentRegions() {
        long now = context.currentSystemTimeMs();
        if (now - startedAtMs < replacement.patienceMs()) {
            return;
        }
        Map<String, Long> lastHeard = new HashMap<>();
        for (WorkerSnapshot worker : fleet.all()) {
            lastHeard.merge(worker.region(), worker.observedAtMs(), Math::max);
        }
        // the store is scanned only when a region this task dispatched to has gone quiet
        if (regionsDispatchedTo.stream().allMatch(region -> lastHeard.containsKey(region)
                && now - lastHeard.get(region) <= replacement.patienceMs())) {
            return;
        }
        Set<String> silent = new TreeSet<>();
        Set<String> stillInFlight = new HashSet<>();
        Map<String, String> replaced = new HashMap<>();
        try (KeyValueIterator<String, DispatchedRequest> it = inFlight.all()) {
            while (it.hasNext()) {
                KeyValue<String, DispatchedRequest> entry = it.next();
                DispatchedRequest dispatched = entry.value;
                stillInFlight.add(dispatched.getRegion());
                long heard = lastHeard.getOrDefault(dispatched.getRegion(), Long.MIN_VALUE);
                if (heard != Long.MIN_VALUE && now - heard <= replacement.patienceMs()) {
                    continue;
                }
                silent.add(dispatched.getRegion());
                String why = heard == Long.MIN_VALUE ? "region " + dispatched.getRegion() + " has never reported"
                        : "region " + dispatched.getRegion() + " silent for " + (now - heard) + " ms";
                replaced.put(entry.key, why);
            }
        }
        // a region nothing is in flight to any more no longer makes every check scan the store
        regionsDispatchedTo.retainAll(stillInFlight);
        if (replaced.isEmpty()) {
            return;
        }
        int moved = 0;
        outputSinceAsk = true;
        for (Map.Entry<String, String> entry : replaced.entrySet()) {
            if (replace(inFlight.get(entry.getKey()), entry.getValue(), now)) {
                moved++;
            }
        }
        if (moved > 0) {
            LOG.info("re-placed {} of {} in-flight requests from silent regions {}", moved, replaced.size(), silent);
        }
    }

    /**
     * Gives up on dispatched requests whose result has not come within the forget-after time of
     * their (last) dispatch: each gets a FAILED answer, a decision record, and its hold on the
     * tenant's quota back (its fair-share charge stays at its estimate: its real usage is unknown).
     * Without this, a request whose dispatch or result was lost would never be answered, and would
     * be re-placed at every outage of its region. The answer carries the router's rank for that
     * same dispatch attempt, below any run of it, and no marker voids the run: a result that still
     * comes wins, and a later request reusing the id (allowed once the dedup retention has passed)
     * is not outranked by it.
     */
    private void forgetAbandoned() {
        long now = context.currentSystemTimeMs();
        List<String> abandoned = new ArrayList<>();
        try (KeyValueIterator<String, DispatchedRequest> it = inFlight.all()) {
            while (it.hasNext()) {
                KeyValue<String, DispatchedRequest> entry = it.next();
                if (now - entry.value.getDecidedAtMs() > replacement.forgetAfterMs()) {
                    abandoned.add(entry.key);
                }
            }
        }
        for (String id : abandoned) {
            DispatchedRequest dispatched = inFlight.get(id);
            InferenceRequest request = dispatched.getRequest();
            int attempt = dispatched.getAttempt();
            String reason = "no result within " + replacement.forgetAfterMs() + " ms of its dispatch to " + dispatched.getRegion()
                    + " (attempt " + attempt + "); the router gave up on it";
            metrics.forgotten();
            answer(request, ResponseStatus.FAILED, DecisionOutcome.REJECTED, reason, "gave up: " + reason, attempt, now);
            inFlight.delete(id);
        }
        if (!abandoned.isEmpty()) {
            LOG.warn("gave up on {} dispatched requests without a result {} ms after their dispatch, e.g. {}",
                    abandoned.size(), replacement.forgetAfterMs(), abandoned.get(0));
        }
    }

    /**
     * A worker's server refused the run for a rate limit: the request goes to another worker as the
     * next dispatch attempt (the telemetry that cools the refusing pool may not have arrived yet,
     * so that worker is left out explicitly); when none can take it now it waits with the parked
     * requests, to be placed as that attempt (by then the pool's cool-down keeps it off the
     * refusing workers). After {@value #MAX_DISPATCH_ATTEMPTS_HANDED_BACK} placements, or with the
     * parked store full, it is answered FAILED with the server's reason. The run ended with the
     * hand-back (the worker wrote it with its offset), so no marker is needed.
     */
    private void handBack(HandBack handBack, long now) {
        DispatchedRequest old = inFlight.get(handBack.requestId());
        if (old == null || old.getAttempt() != handBack.dispatchAttempt()) {
            return;
        }
        InferenceRequest request = old.getRequest();
        String id = request.getRequestId();
        int next = old.getAttempt() + 1;
        String why = "handed back by " + handBack.workerId() + ": " + handBack.reason();
        // the refused run used nothing: its fair-queue charge, if it was served from the queue, is settled at zero
        fairShares.settle(context.taskId(), id, 0, 0);
        if (isCancelled(request)) {
            cancel(request, "cancelled; " + why, next, now);
        } else if (request.getDeadlineMs() != null && request.getDeadlineMs() <= now) {
            expire(request, "deadline " + request.getDeadlineMs() + " passed; " + why, next, now);
        } else if (old.getAttempt() >= MAX_DISPATCH_ATTEMPTS_HANDED_BACK) {
            failHandedBack(request, old, why + "; placed " + old.getAttempt() + " times", next, now);
        } else {
            try {
                String notPlaced = tryPlace(request, InFlightEntries.sourceOf(old), next, "placed again, " + why + "; ",
                        fleet.copyWithout(handBack.workerId()), now);
                if (notPlaced == null) {
                    metrics.handedBack(old.getRegion().toString(), "placed");
                    LOG.debug("request {} {}; placed again (attempt {})", id, why, next);
                    return;
                }
                if (parkedIndex.size() < parkedMaxCount) {
                    metrics.handedBack(old.getRegion().toString(), "parked");
                    LOG.debug("request {} {}; waits for capacity: {}", id, why, notPlaced);
                    // the parked store keeps whole requests
                    InferenceRequest whole = InFlightEntries.whole(old, requests);
                    refusedBy.put(park(whole, next, now), new RefusedBy(handBack.workerId(), now + HANDED_BACK_EXCLUSION_MS));
                } else {
                    failHandedBack(request, old, why + "; no other worker could take it and " + parkedIndex.size() + " requests wait", next, now);
                }
            } catch (RequestReader.UnreadableRequestException e) {
                failHandedBack(request, old, why + "; " + e.getMessage(), next, now);
            }
        }
        inFlight.delete(id);
    }

    private void failHandedBack(InferenceRequest request, DispatchedRequest old, String reason, int answerAttempt, long now) {
        metrics.handedBack(old.getRegion().toString(), "failed");
        LOG.info("request {} failed: {}", request.getRequestId(), reason);
        answer(request, ResponseStatus.FAILED, DecisionOutcome.NO_CAPACITY, reason, "failed: " + reason, answerAttempt, now);
    }

    /** Places one in-flight request of a silent region again; false if it has to wait where it is. */
    private boolean replace(DispatchedRequest old, String why, long now) {
        InferenceRequest request = old.getRequest();
        String id = request.getRequestId();
        int next = old.getAttempt() + 1;
        if (isCancelled(request)) {
            // the user's cancel stops the old run if its region comes back; the answer cannot wait for that
            cancel(request, "cancelled while its region was silent (" + why + ")", next, now);
            inFlight.delete(id);
            return true;
        }
        if (request.getDeadlineMs() != null && request.getDeadlineMs() <= now) {
            String reason = "deadline " + request.getDeadlineMs() + " passed while its region was silent (" + why + ")";
            supersede(id, next, reason, now);
            expire(request, reason, next, now);
            inFlight.delete(id);
            return true;
        }
        // the marker and the new dispatch commit in one transaction: the old region's workers see both or neither
        String notPlaced;
        try {
            notPlaced = tryPlace(request, InFlightEntries.sourceOf(old), next, "re-placed from " + old.getRegion() + " (" + why + "): ",
                    fleet, now);
        } catch (RequestReader.UnreadableRequestException e) {
            String reason = "could not be placed again from silent region " + old.getRegion() + ": " + e.getMessage();
            supersede(id, next, reason, now);
            answer(request, ResponseStatus.FAILED, DecisionOutcome.REJECTED, reason, "failed: " + reason, next, now);
            inFlight.delete(id);
            return true;
        }
        if (notPlaced != null) {
            LOG.debug("request {} waits for silent region {}: {}", id, old.getRegion(), notPlaced);
            return false;
        }
        supersede(id, next, "re-placed from silent region " + old.getRegion(), now);
        metrics.replaced(old.getRegion());
        return true;
    }

    private void supersede(String id, int belowAttempt, String reason, long now) {
        CancelRequest marker = CancelRequest.newBuilder()
                .setRequestId(id)
                .setReason(reason)
                .setRequestedAtMs(now)
                .setSupersedesBelowAttempt(belowAttempt)
                .build();
        context.forward(new Record<Object, Object>(id, marker, now, CancelHeaders.markSupersede(new RecordHeaders())),
                TopologyNames.CANCELLATIONS_SINK);
    }

    private void expire(InferenceRequest request, String reason, int dispatchAttempt, long now) {
        metrics.expired();
        LOG.info("expired request {}: {}", request.getRequestId(), reason);
        answer(request, ResponseStatus.EXPIRED, DecisionOutcome.NO_CAPACITY, reason, "expired: " + reason, dispatchAttempt, now);
    }

    private boolean isCancelled(InferenceRequest request) {
        // a tenant's cancel (topics per tenant) cancels that tenant's request only
        return CancelledEntry.cancels(cancellations.get(request.getRequestId()), request.getTenant());
    }

    private void cancel(InferenceRequest request, String why, int dispatchAttempt, long now) {
        metrics.cancelled();
        LOG.info("request {} {}", request.getRequestId(), why);
        answer(request, ResponseStatus.CANCELLED, DecisionOutcome.REJECTED, why, "cancelled: " + why, dispatchAttempt, now);
    }

    /**
     * Answers a request the router will not run (any more): its terminal response, its decision
     * record and its quota hold back. Every such path comes through here, so none writes less.
     * Once dispatched ({@code dispatchAttempt} above 0), the answer ranks as the router's for that
     * attempt and the decision names it; before, both keep {@link Conversions}' defaults (attempt 1,
     * below every run).
     */
    private void answer(InferenceRequest request, ResponseStatus status, DecisionOutcome outcome, String reason,
                        String decisionReason, int dispatchAttempt, long now) {
        String id = request.getRequestId();
        ResponseEvent terminal = Conversions.terminal(id, request, status, reason, now);
        RoutingDecision decision = Conversions.refusedDecision(id, request, outcome, policyName, 0, decisionReason, now);
        if (dispatchAttempt != NOT_DISPATCHED) {
            terminal.setAttempt(RunAttempt.routerAnswer(dispatchAttempt));
            decision.setAttempt(dispatchAttempt);
        }
        context.forward(new Record<Object, Object>(id, terminal, now, new RecordHeaders()), TopologyNames.RESPONSES_SINK);
        context.forward(new Record<Object, Object>(id, decision, now, new RecordHeaders()), TopologyNames.DECISIONS_SINK);
        releaseQuota(request, now);
    }

    /** Returns the quota reservation of a request answered without running it. */
    private void releaseQuota(InferenceRequest request, long now) {
        if (releaseQuotas) {
            String tenant = Conversions.nullToEmpty(request.getTenant());
            context.forward(new Record<Object, Object>(tenant, QuotaSettlement.release(request.getRequestId()), now,
                    new RecordHeaders()), TopologyNames.ADMISSION_SETTLE_SINK);
        }
    }

    private void giveUp(InferenceRequest request, String lastReason, int dispatchAttempt, long now) {
        refuse(request, "no worker had room for " + parkedMaxMs + " ms; " + lastReason, dispatchAttempt, now);
    }

    private void refuse(InferenceRequest request, String why, long now) {
        refuse(request, why, NOT_DISPATCHED, now);
    }

    private void refuse(InferenceRequest request, String why, int dispatchAttempt, long now) {
        String reason = new Rejection(Rejection.NO_CAPACITY, why).reason();
        metrics.rejected(Rejection.NO_CAPACITY);
        answer(request, ResponseStatus.REJECTED, DecisionOutcome.NO_CAPACITY, reason, reason, dispatchAttempt, now);
    }

    @Override
    public void close() {
        if (retry != null) {
            retry.cancel();
        }
        if (replacementCheck != null) {
            replacementCheck.cancel();
        }
        if (forgetCheck != null) {
            forgetCheck.cancel();
        }
        if (commitCheck != null) {
            commitCheck.cancel();
        }
        metrics.parkedChanged(-parkedIndex.size());
        parkedIndex.clear();
        fairShares.close(context.taskId(), queue);
    }
}
