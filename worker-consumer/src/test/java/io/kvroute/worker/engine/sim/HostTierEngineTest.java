package io.kvroute.worker.engine.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.kvroute.worker.engine.EngineRequest;
import io.kvroute.worker.engine.KvChanges;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The engine core with a host-DRAM prefix tier, in virtual time. */
class HostTierEngineTest {
    private static final CostModel COST = CostModel.llama8bH100();

    private static long[] hashes(long first, int count) {
        return LongStream.range(first, first + count).toArray();
    }

    private static EngineRequest request(String id, int prompt, int maxTokens, long[] hashes, long arrivalMs) {
        return new EngineRequest(id, 1, prompt, maxTokens, hashes, 64, arrivalMs);
    }

    /** Steps until idle; returns the steps. */
    private static List<StepResult> runToIdle(EngineCore core, long[] clock) {
        List<StepResult> steps = new ArrayList<>();
        while (core.hasWork()) {
            StepResult step = core.step(clock[0]);
            assertThat(step.idle()).isFalse();
            steps.add(step);
            clock[0] = step.endMs();
            core.checkInvariants();
        }
        return steps;
    }

    private static StepResult.Finished finished(List<StepResult> steps, String key) {
        return steps.stream().flatMap(s -> s.finished().stream()).filter(f -> f.request().key().equals(key))
                .findFirst().orElseThrow();
    }

    @Test
    void shouldLoadAPrefixEvictedFromTheGpuFromTheHostTierInsteadOfRecomputingIt() {
        EngineCore core = new EngineCore(COST, new EngineLimits(64, 256, 8192, 100));
        long[] clock = {0};
        core.add(request("a", 512, 1, hashes(1, 8), clock[0]));
        runToIdle(core, clock);
        assertThat(core.drainKvChanges().stored()).containsExactlyElementsOf(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L));

        core.add(request("b", 1024, 1, hashes(100, 16), clock[0]));
        runToIdle(core, clock);
        assertThat(core.prefixCache().contains(1)).as("evicted from the GPU").isFalse();
        assertThat(core.prefixCache().hostTier().contains(1)).as("offloaded to the host").isTrue();
        KvChanges afterOffload = core.drainKvChanges();
        assertThat(afterOffload.evicted()).as("a block in the host tier is still held").isEmpty();
        List<Long> hostOnly = LongStream.rangeClosed(1, 8).filter(h -> !core.prefixCache().contains(h)).boxed().toList();
        assertThat(hostOnly).contains(1L);
        assertThat(afterOffload.offloaded()).as("a's blocks that left the GPU, named as host-only")
                .containsExactlyInAnyOrderElementsOf(hostOnly);
        assertThat(afterOffload.reloaded()).isEmpty();

        core.add(request("c", 612, 1, hashes(1, 9), clock[0]));
        List<StepResult> steps = runToIdle(core, clock);

        StepResult load = steps.get(0);
        assertThat(load.prefillTokens()).isEqualTo(100);
        assertThat(load.hostLoadedTokens()).isEqualTo(512);
        double expected = COST.stepMs(100, CostModel.prefillAttention(100, 512), 0, 0)
                + 512 * CostModel.LLAMA_8B_PCIE5_HOST_LOAD_TOKEN_MS;
        assertThat(load.durationMs()).isCloseTo(expected, within(1e-9));
        assertThat(load.durationMs()).isCloseTo(COST.stepMs(100, CostModel.prefillAttention(100, 512), 0, 0, 512), within(1e-9));
        assertThat(load.durationMs()).isLessThan(COST.idlePrefillMs(612, 0));
        StepResult.Finished c = finished(steps, "c#1");
        assertThat(c.usage().cachedTokens()).isEqualTo(512);
        assertThat(c.usage().hostCachedTokens()).isEqualTo(512);
        assertThat(core.prefixCache().contains(1)).as("loaded back into the GPU cache").isTrue();
        assertThat(core.prefixCache().hostTier().contains(1)).as("the host keeps its copy").isTrue();
        KvChanges afterLoad = core.drainKvChanges();
        assertThat(afterLoad.evicted()).isEmpty();
        assertThat(afterLoad.reloaded()).as("loaded back: on the GPU again").containsExactlyInAnyOrderElementsOf(hostOnly);
        assertThat(afterLoad.offloaded()).doesNotContainAnyElementsOf(hostOnly);
        assertThat(core.stats().prefixCacheHitRate()).isCloseTo(512.0 / (512 + 1024 + 612), within(1e-9));
        assertThat(core.stats().hostPrefixHitRate()).isCloseTo(512.0 / (512 + 1024 + 612), within(1e-9));

        Set<Long> evictedSoFar = new HashSet<>();
        for (int i = 0; i < 10 && core.prefixCache().holds(1); i++) {
            assertThat(evictedSoFar).doesNotContain(1L);
            core.add(request("filler" + i, 1024, 1, hashes(1000L * (i + 1), 16), clock[0]));
            runToIdle(core, clock);
            evictedSoFar.addAll(core.drainKvChanges().evicted());
            assertThat(core.prefixCache().hostTier().usedPages()).isLessThanOrEqualTo(100);
        }
        assertThat(core.prefixCache().holds(1)).as("pushed out of both tiers").isFalse();
        assertThat(evictedSoFar).contains(1L);
        evictedSoFar.forEach(h -> assertThat(core.prefixCache().holds(h)).isFalse());
    }

    @Test
    void shouldLoadOnlyTheHostBlocksThatFollowTheGpuHits() {
        EngineCore core = new EngineCore(COST, new EngineLimits(64, 256, 8192, 100));
        long[] clock = {0};
        core.add(request("a", 512, 1, hashes(1, 8), clock[0]));
        runToIdle(core, clock);
        core.add(request("b", 896, 1, hashes(100, 14), clock[0]));
        runToIdle(core, clock);
        int onGpu = core.prefixCache().matchPrefix(hashes(1, 8), 8);
        assertThat(onGpu).as("some but not all of a's blocks were evicted").isBetween(1, 7);

        core.add(request("c", 612, 1, hashes(1, 9), clock[0]));
        List<StepResult> steps = runToIdle(core, clock);

        assertThat(steps.get(0).hostLoadedTokens()).isEqualTo((8L - onGpu) * 64);
        assertThat(steps.get(0).prefillTokens()).isEqualTo(100);
        assertThat(finished(steps, "c#1").usage().cachedTokens()).isEqualTo(512);
        assertThat(finished(steps, "c#1").usage().hostCachedTokens()).isEqualTo((8 - onGpu) * 64);
    }

    @Test
    void shouldRecomputeAndReportTheEvictionWithoutAHostTier() {
        EngineCore core = new EngineCore(COST, new EngineLimits(64, 256, 8192));
        long[] clock = {0};
        core.add(request("a", 512, 1, hashes(1, 8), clock[0]));
        runToIdle(core, clock);
        core.drainKvChanges();
        core.add(request("b", 1024, 1, hashes(100, 16), clock[0]));
        runToIdle(core, clock);
        assertThat(core.drainKvChanges().evicted()).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);

        core.add(request("c", 612, 1, hashes(1, 9), clock[0]));
        List<StepResult> steps = runToIdle(core, clock);
        assertThat(steps.get(0).prefillTokens()).isEqualTo(612);
        assertThat(steps.get(0).hostLoadedTokens()).isZero();
        assertThat(finished(steps, "c#1").usage().cachedTokens()).isZero();
        assertThat(core.stats().hostKvBlocksTotal()).isZero();
    }

    @Test
    void shouldCountOnlyPagesOfRunningRequestsAsKvInUse() {
        EngineCore core = new EngineCore(COST, new EngineLimits(64, 256, 8192, 100));
        long[] clock = {0};
        core.add(request("a", 512, 1, hashes(1, 8), clock[0]));
        runToIdle(core, clock);
        assertThat(core.prefixCache().cachedBlocks()).isEqualTo(8);
        assertThat(core.stats().kvBlocksUsed()).isZero();
        assertThat(core.stats().kvUsage()).isZero();

        core.add(request("b", 1024, 1, hashes(100, 16), clock[0]));
        runToIdle(core, clock);
        assertThat(core.stats().hostKvBlocksUsed()).isEqualTo(32);
        assertThat(core.stats().hostKvBlocksTotal()).isEqualTo(100);
        assertThat(core.stats().hostKvUsage()).isCloseTo(0.32, within(1e-9));
        assertThat(core.stats().kvUsage()).isZero();
    }

    @Test
    void shouldKeepBothTiersConsistentUnderARandomWorkloadWithPreemptionsAndAborts() {
        int hostPages = 160;
        EngineCore core = new EngineCore(COST, new EngineLimits(192, 24, 1024, hostPages));
        Random random = new Random(42);
        Map<Long, Boolean> heldByEvents = new HashMap<>();
        Set<Long> hostOnlyByEvents = new HashSet<>();
        int offloads = 0;
        int reloads = 0;
        Set<Long> allHashes = new HashSet<>();
        Map<String, Integer> expectedTokens = new HashMap<>();
        Map<String, Integer> tokens = new HashMap<>();
        Set<String> aborted = new HashSet<>();
        long now = 0;
        int preempted = 0;
        long loaded = 0;
        int next = 0;
        for (int round = 0; round < 4_000; round++) {
            if (next < 600 && random.nextInt(3) == 0) {
                int document = random.nextInt(12);
                int blocks = 1 + random.nextInt(8);
                int prompt = blocks * 64 + random.nextInt(64);
                long[] h = new long[blocks];
                for (int b = 0; b < blocks; b++) {
                    h[b] = document * 1000L + b;
                    allHashes.add(h[b]);
                }
                String id = "r" + next++;
                int maxTokens = 1 + random.nextInt(40);
                core.add(request(id, prompt, maxTokens, h, now));
                expectedTokens.put(id + "#1", maxTokens);
            }
            if (next > 0 && random.nextInt(25) == 0) {
                String id = "r" + random.nextInt(next);
                if (core.abort(id) > 0) {
                    aborted.add(id + "#1");
                }
            }
            StepResult step = core.step(now);
            now = step.idle() ? now + 1 : step.endMs();
            preempted += step.preempted().size();
            loaded += step.hostLoadedTokens();
            step.tokensByKey().forEach((k, n) -> tokens.merge(k, n, Integer::sum));
            core.checkInvariants();
            assertThat(core.prefixCache().hostTier().usedPages()).isLessThanOrEqualTo(hostPages);
            KvChanges changes = core.drainKvChanges();
            changes.stored().forEach(h -> assertThat(heldByEvents.put(h, true)).as("stored twice: " + h).isNotEqualTo(true));
            changes.evicted().forEach(h -> assertThat(heldByEvents.put(h, false)).as("evicted unheld: " + h).isTrue());
            applyTiers(changes, hostOnlyByEvents);
            offloads += changes.offloaded().size();
            reloads += changes.reloaded().size();
        }
        while (core.hasWork()) {
            StepResult step = core.step(now);
            now = step.endMs();
            step.tokensByKey().forEach((k, n) -> tokens.merge(k, n, Integer::sum));
            core.checkInvariants();
        }
        KvChanges last = core.drainKvChanges();
        last.stored().forEach(h -> heldByEvents.put(h, true));
        last.evicted().forEach(h -> heldByEvents.put(h, false));
        applyTiers(last, hostOnlyByEvents);

        assertThat(preempted).as("the workload must preempt").isPositive();
        assertThat(loaded).as("the workload must load from the host tier").isPositive();
        assertThat(aborted).isNotEmpty();
        for (long h : allHashes) {
            assertThat(heldByEvents.getOrDefault(h, false)).as("events agree on " + h).isEqualTo(core.prefixCache().holds(h));
            assertThat(hostOnlyByEvents.contains(h)).as("events agree on the tier of " + h)
                    .isEqualTo(core.prefixCache().holds(h) && !core.prefixCache().contains(h));
        }
        assertThat(offloads).as("blocks must move to the host").isPositive();
        assertThat(reloads).as("and back").isPositive();
        expectedTokens.forEach((key, n) -> {
            if (!aborted.contains(key)) {
                assertThat(tokens.get(key)).as(key).isEqualTo(n);
            }
        });
        assertThat(core.kvPool().referencedBlocks()).isZero();
        assertThat(core.kvPool().freeBlocks() + core.prefixCache().evictablePages()).isEqualTo(192);
    }

    /** What a reader of the events knows of which blocks are in host memory only. */
    private static void applyTiers(KvChanges changes, Set<Long> hostOnly) {
        changes.evicted().forEach(hostOnly::remove);
        changes.reloaded().forEach(h -> assertThat(hostOnly.remove(h)).as("reloaded but not host-only: " + h).isTrue());
        changes.offloaded().forEach(h -> assertThat(hostOnly.add(h)).as("offloaded twice: " + h).isTrue());
    }
}
