package io.kvroute.router.routing;

import static io.kvroute.router.routing.Fleet.NOW;
import static io.kvroute.router.routing.Fleet.blocks;
import static io.kvroute.router.routing.Fleet.request;
import static io.kvroute.router.routing.Fleet.worker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KvAwarePolicyTest {
    private final Router router = Router.create(KvAwarePolicy.NAME, Fleet.settings());

    @Test
    void shouldPreferWorkerHoldingThePrefix() {
        List<WorkerSnapshot> fleet = List.of(worker("w-a").build(), worker("w-b").build(), worker("w-c").build());
        long[] shared = blocks(40, 7);
        router.state().prefixIndex().record("w-c", shared, NOW - 50);

        RoutingResult result = router.route(request("r1", 2_600, shared), fleet, NOW);

        Placement placement = result.placement().orElseThrow();
        assertThat(placement.workerId()).isEqualTo("w-c");
        assertThat(placement.matchedBlocks()).isEqualTo(40);
        assertThat(placement.reason()).contains("40 prefix blocks cached");
        assertThat(placement.topCandidates()).hasSize(3);
        assertThat(placement.topCandidates().get(0).components())
                .containsKeys("queue_ms", "prefill_ms", "kv", "prefix_blocks");
    }

    @Test
    void shouldSpreadABurstAcrossWorkersThroughTheLedger() {
        List<WorkerSnapshot> fleet = List.of(worker("w-a").build(), worker("w-b").build(), worker("w-c").build(),
                worker("w-d").build());
        Map<String, Integer> perWorker = new HashMap<>();
        for (int i = 0; i < 40; i++) {
            Placement p = router.route(request("burst-" + i, 4_000, blocks(60, 1_000 + i)), fleet, NOW + i).placement().orElseThrow();
            perWorker.merge(p.workerId(), 1, Integer::sum);
        }
        assertThat(perWorker).containsOnlyKeys("w-a", "w-b", "w-c", "w-d");
        assertThat(perWorker.values()).allSatisfy(n -> assertThat(n).isBetween(9, 11));
    }

    @Test
    void shouldAvoidAWorkerWhoseKvWouldPassTheHeadroom() {
        long[] shared = blocks(20, 3);
        WorkerSnapshot full = worker("w-a").kvBlocks(10_000, 9_600).build();
        WorkerSnapshot roomy = worker("w-b").kvBlocks(10_000, 2_000).build();
        router.state().prefixIndex().record("w-a", shared, NOW - 10);

        Placement placement = router.route(request("r1", 3_000, shared), List.of(full, roomy), NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-b");
        ScoredCandidate penalised = placement.topCandidates().stream().filter(c -> c.workerId().equals("w-a")).findFirst().orElseThrow();
        assertThat(penalised.components().get("kv_penalty_ms")).isPositive();
    }

    @Test
    void shouldChargeWaitingForABatchSlotAsAQueueThatLaterRequestsJoinToo() {
        // every slot taken: this request waits about one completion for a slot, and so will each later one
        WorkerSnapshot full = worker("w-a").maxRunning(8).running(8).runningDecode(8).build();
        // a long decode batch: each step, and so this prefill, takes longer
        WorkerSnapshot busy = worker("w-b").running(60).runningDecode(60).kvBlocks(28_000, 16_000).build();

        Placement placement = router.route(request("r1", 1_000), List.of(full, busy), NOW).placement().orElseThrow();

        Map<String, Double> fullEstimate = placement.topCandidates().stream().filter(c -> c.workerId().equals("w-a"))
                .findFirst().orElseThrow().components();
        Map<String, Double> busyEstimate = placement.topCandidates().stream().filter(c -> c.workerId().equals("w-b"))
                .findFirst().orElseThrow().components();
        assertThat(fullEstimate.get("batch_ms")).isEqualTo(KvAwarePolicy.SLOT_WAIT_MS);
        assertThat(fullEstimate.get("ttft_ms")).as("it would start sooner on the full worker").isLessThan(busyEstimate.get("ttft_ms"));
        assertThat(placement.workerId()).as("but hold up the requests after it").isEqualTo("w-b");
    }

    @Test
    void shouldWaitForASlotAsLongAsTheWorkerTakesToFinishAnAverageAnswer() {
        // two requests beyond the limit; 2,000 output tokens a second
        WorkerSnapshot full = worker("w-a").maxRunning(8).running(8).waiting(1).runningDecode(8).tokensPerSecond(2_000).build();
        double before = router.route(request("r1", 1_000), List.of(full), NOW).placement().orElseThrow()
                .topCandidates().get(0).components().get("batch_ms");

        router.state().outputLengths().completed(400);
        double after = router.route(request("r2", 1_000), List.of(full), NOW).placement().orElseThrow()
                .topCandidates().get(0).components().get("batch_ms");

        assertThat(before).as("before any result").isEqualTo(2 * KvAwarePolicy.SLOT_WAIT_MS);
        assertThat(after).as("r1 waits too now: 3 slots, each a 400-token answer at 2,000 tokens/s").isCloseTo(3 * 200.0,
                org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void shouldSendALongAnswerWhereFewerRequestsArriveToBeSlowedByItsDecode() {
        WorkerSnapshot busier = worker("w-a").build();
        WorkerSnapshot quieter = worker("w-b").observedAtMs(NOW).waiting(1).queuedPrefillTokens(300).build();

        Placement shortAnswer = afterTwentyRequestsOnBusier().route(withMaxTokens(request("short", 1_000), 8),
                List.of(busier, quieter), NOW).placement().orElseThrow();
        Placement longAnswer = afterTwentyRequestsOnBusier().route(withMaxTokens(request("long", 1_000), 8_000),
                List.of(busier, quieter), NOW).placement().orElseThrow();

        assertThat(shortAnswer.workerId()).as("a short answer goes where it starts sooner").isEqualTo("w-a");
        assertThat(longAnswer.workerId()).as("4,000 tokens of decode would slow the requests arriving at w-a").isEqualTo("w-b");
    }

    /** A router that placed 20 requests on w-a 3 s ago (their work is done, their arrival rate decays) and knows answers average 4,000 tokens. */
    private static Router afterTwentyRequestsOnBusier() {
        Router fresh = Router.create(KvAwarePolicy.NAME, Fleet.settings());
        WorkerSnapshot then = worker("w-a").observedAtMs(NOW - 3_100).build();
        for (int i = 0; i < 20; i++) {
            fresh.route(request("earlier-" + i, 16), List.of(then), NOW - 3_000 + i);
        }
        fresh.state().outputLengths().completed(4_000);
        return fresh;
    }

    private static RouteRequest withMaxTokens(RouteRequest r, int maxTokens) {
        return new RouteRequest(r.requestId(), r.tenant(), r.model(), r.promptTokens(), r.hashes(), r.blockTokens(), maxTokens,
                r.allowedRegions(), r.priority(), r.deadlineMs());
    }

    @Test
    void shouldPickALessLoadedWorkerWhenThePrefixHolderIsHeavilyQueued() {
        long[] shared = blocks(16, 11);
        WorkerSnapshot holder = worker("w-a").queuedPrefillTokens(400_000).running(120).runningDecode(100).build();
        WorkerSnapshot idle = worker("w-b").build();
        router.state().prefixIndex().record("w-a", shared, NOW - 10);

        Placement placement = router.route(request("r1", 1_100, shared), List.of(holder, idle), NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-b");
        assertThat(placement.matchedBlocks()).isZero();
    }

    @Test
    void shouldKeepAPrefixGroupOnTheWorkerThatComputedIt() {
        long[] system = blocks(100, 42);
        String holder = router.route(request("r0", 6_500, system),
                List.of(worker("w-a").build(), worker("w-b").build()), NOW).placement().orElseThrow().workerId();
        List<WorkerSnapshot> later = List.of(worker("w-a").observedAtMs(NOW + 1_000).build(),
                worker("w-b").observedAtMs(NOW + 1_000).build());
        for (int i = 1; i < 4; i++) {
            assertThat(router.route(request("r" + i, 6_500, system), later, NOW + 1_000 + i).placement().orElseThrow().workerId())
                    .isEqualTo(holder);
        }
    }

    @Test
    void shouldChooseTheOwnedPartitionWithLeastPendingLoad() {
        WorkerSnapshot worker = worker("w-a").ownedPartitions(List.of(3, 5)).build();
        int first = router.route(request("r1", 500), List.of(worker), NOW).placement().orElseThrow().partition();
        int second = router.route(request("r2", 500), List.of(worker), NOW + 1).placement().orElseThrow().partition();
        assertThat(List.of(first, second)).containsExactly(3, 5);
    }

    @Test
    void shouldUseBlocksWorkersReportInKvEventsWhenTheRouterNeverRoutedThem() {
        List<WorkerSnapshot> fleet = List.of(worker("w-a").build(), worker("w-b").build(), worker("w-c").build());
        long[] shared = blocks(40, 8);
        router.state().kvEventIndex().apply(KvEvent.stored("w-b", 0, shared));

        Placement placement = router.route(request("r1", 2_600, shared), fleet, NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-b");
        assertThat(placement.matchedBlocks()).isEqualTo(40);
    }

    @Test
    void shouldChargeCopyingBackFromHostMemoryThePrefixBlocksAWorkerOffloaded() {
        List<WorkerSnapshot> fleet = List.of(worker("w-a").build(), worker("w-b").build());
        long[] shared = blocks(40, 8);
        router.state().kvEventIndex().apply(KvEvent.stored("w-a", 0, shared));
        router.state().kvEventIndex().apply(KvEvent.stored("w-b", 0, shared));
        // w-a moved the prefix's last 30 blocks (30 x 64 tokens) to host memory
        router.state().kvEventIndex().apply(KvEvent.offloaded("w-a", 1, java.util.Arrays.copyOfRange(shared, 10, 40)));

        Placement placement = router.route(request("r1", 2_600, shared), fleet, NOW).placement().orElseThrow();

        assertThat(placement.workerId()).as("the GPU holding it in GPU memory starts sooner").isEqualTo("w-b");
        double loadMs = TtftModel.LLAMA_8B_H100.hostLoadMs(30 * 64);
        assertThat(loadMs).isCloseTo(30 * 64 * 131_072 * 1000.0 / 25e9, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(component(placement, "w-a", "host_load_ms")).isCloseTo(loadMs, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(component(placement, "w-b", "host_load_ms")).isZero();
        assertThat(component(placement, "w-a", "ttft_ms") - component(placement, "w-b", "ttft_ms"))
                .as("the same estimate but for the copy").isCloseTo(loadMs, org.assertj.core.data.Offset.offset(1e-6));
    }

    @Test
    void shouldTakeTheLargerOfTheReportedAndTheRoutedMatch() {
        long[] shared = blocks(40, 12);
        WorkerSnapshot a = worker("w-a").build();
        router.state().kvEventIndex().apply(KvEvent.stored("w-a", 0, java.util.Arrays.copyOf(shared, 10)));
        router.state().prefixIndex().record("w-a", java.util.Arrays.copyOf(shared, 25), NOW - 10);

        assertThat(router.state().matchedBlocks(a, request("r1", 2_600, shared))).isEqualTo(25);
        router.state().kvEventIndex().apply(KvEvent.stored("w-a", 1, shared));
        assertThat(router.state().matchedBlocks(a, request("r1", 2_600, shared))).isEqualTo(40);
    }

    @Test
    void shouldTrustItsOwnClaimOverAReportingWorkersEventsOnlyWhileTheyMayBeInFlight() {
        long[] shared = blocks(40, 13);
        RouteRequest request = request("r1", 2_600, shared);
        WorkerSnapshot reporting = worker("w-a").build();
        WorkerSnapshot silent = worker("w-b").build();
        router.state().kvEventIndex().apply(KvEvent.stored("w-a", 0, blocks(3, 99)));
        long trustedUntil = NOW + 1_000;
        router.state().prefixIndex().record("w-a", shared, NOW - 60_000, trustedUntil);
        router.state().prefixIndex().record("w-b", shared, NOW - 60_000, trustedUntil);

        assertThat(router.state().cachedBlocks(reporting, request, trustedUntil)).isEqualTo(40);
        assertThat(router.state().cachedBlocks(reporting, request, trustedUntil + 1)).as("evicted, as far as its events say").isZero();
        assertThat(router.state().cachedBlocks(silent, request, trustedUntil + 1)).as("no events to go by").isEqualTo(40);
        WorkerSnapshot joinedLate = worker("w-c").build();
        router.state().kvEventIndex().apply(KvEvent.stored("w-c", 9, blocks(3, 97)));
        router.state().prefixIndex().record("w-c", shared, NOW - 60_000, trustedUntil);
        assertThat(router.state().cachedBlocks(joinedLate, request, trustedUntil + 1))
                .as("its events since an empty cache were not all seen").isEqualTo(40);
        router.state().kvEventIndex().apply(KvEvent.stored("w-a", 1, java.util.Arrays.copyOf(shared, 30)));
        assertThat(router.state().cachedBlocks(reporting, request, trustedUntil + 1)).isEqualTo(30);
        assertThat(router.state().matchedBlocks(reporting, request)).as("the baselines' match keeps the claim").isEqualTo(40);
    }

    @Test
    void shouldTrustAPlacementsClaimForTheLedgerAgePlusItsPrefill() {
        long[] prompt = blocks(40, 14);
        WorkerSnapshot a = worker("w-a").build();
        router.state().kvEventIndex().apply(KvEvent.stored("w-a", 0, blocks(3, 98)));
        RouteRequest request = request("r1", 20_000, prompt);

        router.route(request, List.of(a), NOW).placement().orElseThrow();

        long trust = router.state().claimTrustMs(request.uncachedTokens(0));
        // the default 10 s ledger age + 20,000 tokens at the assumed 25,000 tokens/s
        assertThat(trust).isEqualTo(10_800);
        assertThat(router.state().cachedBlocks(a, request, NOW + trust)).isEqualTo(40);
        assertThat(router.state().cachedBlocks(a, request, NOW + trust + 1)).isZero();
    }

    @Test
    void shouldCopyAPrefixToAGpuWithFreeCacheWhenItsRecentRequestsWouldStartSoonerThere() {
        long[] shared = blocks(100, 79);
        RouteRequest request = request("r1", 6_500, shared);
        // the holder's queue (~110 ms) costs less than copying 6,400 tokens elsewhere, for one request
        WorkerSnapshot holder = worker("w-a").observedAtMs(NOW - 5).queuedPrefillTokens(5_000).waiting(2).build();
        WorkerSnapshot empty = worker("w-b").observedAtMs(NOW - 5).kvBlocks(10_000, 0).build();
        router.state().kvEventIndex().apply(KvEvent.stored("w-b", 0, blocks(1, 5)));
        router.state().prefixIndex().record("w-a", shared, NOW - 10);

        Placement withoutDemand = router.route(request, List.of(holder, empty), NOW).placement().orElseThrow();
        assertThat(withoutDemand.workerId()).as("one request alone does not pay for the copy").isEqualTo("w-a");

        Router busy = routerWithRecentRequests(shared, 20);
        busy.state().kvEventIndex().apply(KvEvent.stored("w-b", 0, blocks(1, 5)));
        busy.state().prefixIndex().record("w-a", shared, NOW - 10);
        Placement withDemand = busy.route(request("r2", 6_500, shared), List.of(holder, empty), NOW).placement().orElseThrow();

        assertThat(withDemand.workerId()).isEqualTo("w-b");
        assertThat(withDemand.topCandidates().get(0).components().get("future_gain_ms")).isPositive();
    }

    @Test
    void shouldNotCountAFutureGainForACopyIntoAFullCacheOrAGpuThatSendsNoKvEvents() {
        long[] shared = blocks(100, 80);
        WorkerSnapshot holder = worker("w-a").observedAtMs(NOW - 5).queuedPrefillTokens(5_000).waiting(2).build();
        WorkerSnapshot full = worker("w-b").observedAtMs(NOW - 5).kvBlocks(10_000, 0).build();
        WorkerSnapshot unreported = worker("w-c").observedAtMs(NOW - 5).kvBlocks(10_000, 0).build();
        Router busy = routerWithRecentRequests(shared, 20);
        // w-b's cache holds 160,000 tokens of other prefixes: all of it
        busy.state().kvEventIndex().apply(KvEvent.stored("w-b", 0, blocks(2_500, 6)));
        busy.state().prefixIndex().record("w-a", shared, NOW - 10);

        Placement placement = busy.route(request("r2", 6_500, shared), List.of(holder, full, unreported), NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-a");
        assertThat(placement.topCandidates()).allSatisfy(c -> assertThat(c.components().get("future_gain_ms")).isZero());
    }

    /** A router that has just placed {@code n} requests of the prefix on a worker outside the tests' candidates. */
    private static Router routerWithRecentRequests(long[] prefix, int n) {
        Router fresh = Router.create(KvAwarePolicy.NAME, Fleet.settings());
        List<WorkerSnapshot> elsewhere = List.of(worker("w-z").build());
        for (int i = 0; i < n; i++) {
            fresh.route(request("earlier-" + i, 6_500, prefix), elsewhere, NOW - 500 + i).placement().orElseThrow();
        }
        return fresh;
    }

    @Test
    void shouldBreakTiesByWorkerId() {
        List<WorkerSnapshot> fleet = List.of(worker("w-b").build(), worker("w-a").build());
        assertThat(router.route(request("r1", 500), fleet, NOW).placement().orElseThrow().workerId()).isEqualTo("w-a");
    }

    @Test
    void shouldNotCopyAPrefixToASlightlyLessBusyWorker() {
        long[] shared = blocks(100, 77);
        // the holder has ~1,000 uncached tokens queued (~30 ms); recomputing 6,400 tokens elsewhere costs far more
        WorkerSnapshot holder = worker("w-a").queuedPrefillTokens(1_000).waiting(1).build();
        WorkerSnapshot idle = worker("w-b").build();
        router.state().prefixIndex().record("w-a", shared, NOW - 10);

        Placement placement = router.route(request("r1", 6_500, shared), List.of(holder, idle), NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-a");
        ScoredCandidate copy = placement.topCandidates().stream().filter(c -> c.workerId().equals("w-b")).findFirst().orElseThrow();
        double free = 1 - copy.components().get("kv");
        assertThat(copy.components().get("replication_ms"))
                .isCloseTo(KvAwarePolicy.DUPLICATION_WEIGHT * TtftModel.LLAMA_8B_H100.prefillMs(6_400, 0) / (free * free), within(1e-6));
    }

    @Test
    void shouldCopyABusyHoldersPrefixOnlyWhereKvIsPlentiful() {
        long[] shared = blocks(100, 79);
        // ~20,000 queued tokens: a cold copy on an idle GPU starts sooner
        WorkerSnapshot holder = worker("w-a").queuedPrefillTokens(20_000).waiting(8).build();
        router.state().prefixIndex().record("w-a", shared, NOW - 10);
        RouteRequest r = request("r1", 6_500, shared);

        WorkerSnapshot roomy = worker("w-b").kvBlocks(28_000, 5_600).build();
        assertThat(router.route(r, List.of(holder, roomy), NOW).placement().orElseThrow().workerId()).isEqualTo("w-b");

        // the same GPU with 85 % of its KV in use: the copy is charged (1 / 0.135)^2, about 55 half prefills (1.6 at 20 %)
        Router other = Router.create(KvAwarePolicy.NAME, Fleet.settings());
        other.state().prefixIndex().record("w-a", shared, NOW - 10);
        WorkerSnapshot nearlyFull = worker("w-b").kvBlocks(28_000, 23_800).build();
        Placement placement = other.route(r, List.of(holder, nearlyFull), NOW).placement().orElseThrow();
        assertThat(placement.workerId()).isEqualTo("w-a");
        ScoredCandidate copy = placement.topCandidates().stream().filter(c -> c.workerId().equals("w-b")).findFirst().orElseThrow();
        assertThat(copy.components().get("kv_penalty_ms")).isZero();
    }

    @Test
    void shouldKeepAPrefixOnItsHolderPastTheKvHeadroomRatherThanCopyItToAFillingWorker() {
        long[] shared = blocks(100, 80);
        RouteRequest r = request("r1", 6_500, shared);
        // 85 % in use: the copy takes 6,400 prefix tokens' pages there, charged about 55 half prefills of them
        WorkerSnapshot filling = worker("w-b").kvBlocks(28_000, 23_800).build();
        // past the 95 % headroom (96 %) and past the 98 % saturation: the holder needs pages for its ~230 own tokens only
        for (int used : new int[] {26_900, 27_500}) {
            Router fresh = Router.create(KvAwarePolicy.NAME, Fleet.settings());
            fresh.state().prefixIndex().record("w-a", shared, NOW - 10);
            WorkerSnapshot holder = worker("w-a").kvBlocks(28_000, used).build();

            Placement placement = fresh.route(r, List.of(holder, filling), NOW).placement().orElseThrow();

            assertThat(placement.workerId()).as("holder using %d of 28,000 pages", used).isEqualTo("w-a");
            // the pages of its 100 uncached tokens and a 128-token answer, priced as a copy's
            int ownTokens = (int) (Fleet.settings().kvBlocksNeeded(r, 100, holder.kvBlockTokens()) * holder.kvBlockTokens());
            double free = Math.max(KvAwarePolicy.MIN_FREE_KV_OWN_PAGES, 1 - placement.topCandidates().get(0).components().get("kv"));
            assertThat(placement.topCandidates().get(0).components().get("kv_penalty_ms")).isCloseTo(
                    KvAwarePolicy.DUPLICATION_WEIGHT * TtftModel.LLAMA_8B_H100.prefillMs(ownTokens, 0) / (free * free), within(1e-6));
        }
    }

    @Test
    void shouldPriceAFullHoldersOwnPagesBelowASecondsQueueOnAnotherHolder() {
        long[] shared = blocks(100, 94);
        RouteRequest r = request("r1", 7_200, shared);
        router.state().prefixIndex().record("w-full", shared, NOW - 10);
        router.state().prefixIndex().record("w-queued", shared, NOW - 10);
        // both hold the prefix: one idle at 97 % KV, one at 88 % with about 600 ms of prompts queued
        WorkerSnapshot full = worker("w-full").kvBlocks(28_000, 27_160).build();
        WorkerSnapshot queued = worker("w-queued").kvBlocks(28_000, 24_640).queuedPrefillTokens(28_000).waiting(20).build();

        Placement placement = router.route(r, List.of(full, queued), NOW).placement().orElseThrow();

        // its ~1,300 own tokens' pages cost at most a preemption: about 400 ms, not the 7 s of the copy's price
        assertThat(placement.workerId()).isEqualTo("w-full");
        assertThat(component(placement, "w-full", "kv_penalty_ms")).isBetween(100.0, 1_000.0);
    }

    @Test
    void shouldTrustAReportWithNoPrefillRunningOverItsOwnCountBeyondOneStep() {
        // the router's own count: 40 prompts of 4,000 tokens placed within 40 ms, seconds of prefill
        for (int i = 0; i < 40; i++) {
            router.route(request("placed-" + i, 4_000, blocks(60, 2_000 + i)), List.of(worker("w-a").build()), NOW + i).placement().orElseThrow();
        }
        long later = NOW + 1_000;
        WorkerSnapshot idle = worker("w-a").observedAtMs(later).build();
        WorkerSnapshot prefilling = worker("w-a").observedAtMs(later).running(1).runningPrefill(1).build();
        // the same prefill, reported with what it has left (1,000 of a 4,000-token prompt) and its attention to the rest
        long left = 1_000;
        WorkerSnapshot prefillingReported = worker("w-a").observedAtMs(later).running(1).runningPrefill(1)
                .queuedPrefillTokens(left).queuedPrefillAttention(left * (3_000 + left / 2)).build();

        double idleQueue = queueMs(router.route(request("r1", 1_000), List.of(idle), later));
        double prefillingQueue = queueMs(router.route(request("r2", 1_000), List.of(prefilling), later));
        double reportedQueue = queueMs(router.route(request("r3", 1_000), List.of(prefillingReported), later));

        double oneStep = TtftModel.LLAMA_8B_H100.fullStepMs() + TtftModel.LLAMA_8B_H100.decodeMsPerStep(0, 0);
        // a report with no prefill running: the count adds at most the step in progress
        assertThat(idleQueue).isLessThanOrEqualTo(oneStep);
        // while a prefill runs, a report without its attention can undercount it, so the count stands: what is left of
        // its seconds of work
        assertThat(prefillingQueue).isGreaterThan(1_000);
        // one with it does not: the count adds at most the step in progress to it
        assertThat(reportedQueue).isLessThanOrEqualTo(TtftModel.LLAMA_8B_H100.queuedPrefillMsOfAttention(left, left * (3_000 + left / 2))
                + 2 * oneStep);
    }

    @Test
    void shouldPriceAReportedQueueWithTheAttentionItsPromptsOweToWhatTheyHaveInKv() {
        // one prompt of 60,000 tokens, half prefilled: its 30,000 tokens left attend to the 30,000 computed
        long left = 30_000;
        long attention = left * (30_000 + left / 2);
        WorkerSnapshot reported = worker("w-a").running(1).runningPrefill(1).queuedPrefillTokens(left)
                .queuedPrefillAttention(attention).observedAtMs(NOW).build();
        WorkerSnapshot unreported = worker("w-b").running(1).runningPrefill(1).queuedPrefillTokens(left).observedAtMs(NOW).build();

        Placement placement = router.route(request("r1", 1_000), List.of(reported, unreported), NOW).placement().orElseThrow();

        TtftModel model = TtftModel.LLAMA_8B_H100;
        double withAttention = model.queuedPrefillMsOfAttention(left, attention);
        assertThat(component(placement, "w-a", "queue_ms")).isCloseTo(withAttention, within(1.0));
        // without it the queue is priced as if the prompt had nothing in KV: 30,000 * 30,000 token pairs short
        assertThat(component(placement, "w-b", "queue_ms")).isCloseTo(model.queuedPrefillMs(left, left), within(1.0));
        assertThat(withAttention - model.queuedPrefillMs(left, left)).isCloseTo(model.kMsPerTokenPair() * left * 30_000, within(1.0));
        assertThat(placement.workerId()).isEqualTo("w-b");
    }

    private static double queueMs(RoutingResult result) {
        return result.placement().orElseThrow().topCandidates().get(0).components().get("queue_ms");
    }

    @Test
    void shouldReplicateAHotPrefixWhenItsHolderIsOverloaded() {
        long[] shared = blocks(100, 78);
        WorkerSnapshot holder = worker("w-a").queuedPrefillTokens(200_000).waiting(60).build();
        WorkerSnapshot idle = worker("w-b").build();
        router.state().prefixIndex().record("w-a", shared, NOW - 10);

        Placement placement = router.route(request("r1", 6_500, shared), List.of(holder, idle), NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-b");
    }

    @Test
    void shouldLearnARegionsDelayFromTheAgeOfItsTelemetryWhenTheCatalogDoesNotListIt() {
        // identical idle workers; the tie-break alone would pick a-eu
        WorkerSnapshot far = WorkerSnapshot.builder("a-eu", "eu-west").observedAtMs(NOW - 40).build();
        WorkerSnapshot near = WorkerSnapshot.builder("b-us", "us-east").observedAtMs(NOW - 5).build();

        Placement placement = router.route(request("r1", 2_000), List.of(far, near), NOW).placement().orElseThrow();

        assertThat(placement.workerId()).isEqualTo("b-us");
        assertThat(component(placement, "b-us", "network_ms")).isEqualTo(10.0);
        assertThat(component(placement, "a-eu", "network_ms")).isEqualTo(80.0);
    }

    @Test
    void shouldSendANewPrefixToTheWorkerFewerRequestsArriveAt() {
        RouterState state = new RouterState(Fleet.settings());
        KvAwarePolicy policy = new KvAwarePolicy(state);
        // w-a has been receiving ten requests a second, w-b none; both look idle
        for (int i = 0; i < 50; i++) {
            long at = NOW - 5_000 + i * 100L;
            policy.onPlaced(request("old-" + i, 500), new Placement("w-a", "us-east", 0, 0, 0, List.of(), "test"), at);
        }
        List<WorkerSnapshot> fleet = List.of(worker("w-a").build(), worker("w-b").build());

        Placement placement = policy.place(request("cold", 7_000, blocks(110, 5)), fleet, NOW).orElseThrow();

        assertThat(placement.workerId()).isEqualTo("w-b");
        ScoredCandidate busy = placement.topCandidates().get(1);
        assertThat(busy.workerId()).isEqualTo("w-a");
        assertThat(busy.components().get("arrivals_per_s")).isGreaterThan(5.0);
        assertThat(busy.components().get("congestion_ms")).isGreaterThan(100.0);
        assertThat(busy.components().get("ttft_ms")).isEqualTo(placement.topCandidates().get(0).components().get("ttft_ms"));
    }

    @Test
    void shouldCountAPrefillPlacedSinceTelemetryOnlyUntilItsTimeHasPassed() {
        WorkerSnapshot a = worker("w-a").build();
        WorkerSnapshot b = worker("w-b").build();
        String first = router.route(request("big", 7_000, blocks(110, 21)), List.of(a, b), NOW).placement().orElseThrow().workerId();
        String other = first.equals("w-a") ? "w-b" : "w-a";
        double prefill = TtftModel.LLAMA_8B_H100.prefillMs(7_000, 0);

        Placement soon = router.route(request("next", 500, blocks(8, 22)), List.of(a, b), NOW + 1).placement().orElseThrow();
        Placement later = router.route(request("later", 500, blocks(8, 23)), List.of(a, b), NOW + 1_000).placement().orElseThrow();

        assertThat(soon.workerId()).isEqualTo(other);
        assertThat(component(soon, first, "queue_ms")).isGreaterThan(prefill - 150);
        assertThat(component(later, first, "queue_ms")).isLessThan(10.0);
    }

    @Test
    void shouldChargeAttentionToTheCachedContextInTheTtftModel() {
        TtftModel model = TtftModel.LLAMA_8B_H100;
        // one step: T0 + a*n + k*n*(cached + n/2)
        assertThat(model.prefillMs(1_000, 0)).isCloseTo(6.5 + 20.0 + 1.3e-6 * 1_000 * 500, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(model.prefillMs(1_000, 30_000)).isCloseTo(6.5 + 20.0 + 1.3e-6 * 1_000 * 30_500, org.assertj.core.data.Offset.offset(1e-9));
        // a 20k-token prompt takes three 8,192-token steps
        assertThat(model.steps(20_000)).isEqualTo(3);
        assertThat(model.prefillMs(20_000, 0)).isCloseTo(3 * 6.5 + 400.0 + 1.3e-6 * 20_000 * 10_000, org.assertj.core.data.Offset.offset(1e-9));
    }

    private static double component(Placement placement, String workerId, String key) {
        return placement.topCandidates().stream().filter(c -> c.workerId().equals(workerId)).findFirst().orElseThrow()
                .components().get(key);
    }

    @Test
    void shouldPlaceOnAWorkerOfManyShortPromptsPastItsOwnQueueLimitRatherThanBehindFewLongOnes() {
        // w-a: 600 short requests (past 2 x 256 slots) owing 60,000 prompt tokens; w-b: 100 long ones owing 800,000.
        // Counted per worker, w-a was left out and every request queued behind w-b's far longer prefill.
        WorkerSnapshot manyShort = worker("w-a").maxRunning(256).running(200).runningDecode(200).waiting(400)
                .queuedPrefillTokens(60_000).build();
        WorkerSnapshot fewLong = worker("w-b").maxRunning(256).running(20).runningDecode(20).waiting(80)
                .queuedPrefillTokens(800_000).build();

        RoutingResult result = router.route(request("r1", 500), List.of(manyShort, fewLong), NOW);

        assertThat(result.candidates().candidates()).extracting(WorkerSnapshot::workerId).containsExactly("w-a", "w-b");
        assertThat(result.placement()).map(Placement::workerId).contains("w-a");
        // a policy that does not price the queue still leaves out each worker past its own limit
        RoutingResult leastQueue = Router.create(LeastQueuePolicy.NAME, Fleet.settings()).route(request("r1", 500),
                List.of(manyShort, fewLong), NOW);
        assertThat(leastQueue.placement()).map(Placement::workerId).contains("w-b");
    }
}
