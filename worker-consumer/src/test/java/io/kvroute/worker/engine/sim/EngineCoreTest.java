package io.kvroute.worker.engine.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.worker.engine.EngineRequest;
import io.kvroute.worker.engine.EngineStats;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class EngineCoreTest {

    private static long[] hashes(long first, int count) {
        return LongStream.range(first, first + count).toArray();
    }

    private static EngineRequest request(String id, int prompt, int maxTokens, long[] hashes, long arrivalMs) {
        return new EngineRequest(id, 1, prompt, maxTokens, hashes, 64, arrivalMs);
    }

    /** Runs the core in virtual time until it is idle, collecting every step. */
    private static Run runToIdle(EngineCore core, long startMs) {
        Run run = new Run();
        long now = startMs;
        while (core.hasWork()) {
            StepResult step = core.step(now);
            assertThat(step.idle()).as("a core with work must make progress").isFalse();
            run.steps.add(step);
            step.tokensByKey().forEach((k, n) -> run.tokens.merge(k, n, Integer::sum));
            run.ttft.putAll(step.firstTokenTtftMs());
            step.finished().forEach(f -> run.finished.put(f.request().key(), f));
            run.preempted += step.preempted().size();
            now = step.endMs();
        }
        run.endMs = now;
        return run;
    }

    private static final class Run {
        final List<StepResult> steps = new ArrayList<>();
        final Map<String, Integer> tokens = new HashMap<>();
        final Map<String, Long> ttft = new HashMap<>();
        final Map<String, StepResult.Finished> finished = new HashMap<>();
        int preempted;
        long endMs;
    }

    @Test
    void shouldCutPrefillWorkAndTtftWhenThePrefixIsCached() {
        EngineCore warm = new EngineCore(CostModel.llama8bH100(), EngineLimits.defaults());
        warm.add(request("first", 4096, 2, hashes(1, 64), 0));
        Run first = runToIdle(warm, 0);

        warm.add(request("second", 4096 + 100, 2, hashes(1, 65), first.endMs));
        Run second = runToIdle(warm, first.endMs);

        EngineCore cold = new EngineCore(CostModel.llama8bH100(), EngineLimits.defaults());
        cold.add(request("second", 4096 + 100, 2, hashes(1000, 65), 0));
        Run coldRun = runToIdle(cold, 0);

        assertThat(second.steps.get(0).prefillTokens()).isEqualTo(100);
        assertThat(coldRun.steps.stream().mapToLong(StepResult::prefillTokens).sum()).isEqualTo(4196);
        assertThat(second.finished.get("second#1").usage().cachedTokens()).isEqualTo(4096);
        assertThat(coldRun.finished.get("second#1").usage().cachedTokens()).isZero();
        assertThat(second.ttft.get("second#1")).isLessThan(coldRun.ttft.get("second#1") / 4);
        assertThat(warm.stats().prefixCacheHitRate()).isCloseTo(4096.0 / (4096 + 4196), org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void shouldRecomputeTheLastBlockWhenTheWholePromptIsCached() {
        EngineCore core = new EngineCore(CostModel.llama8bH100(), EngineLimits.defaults());
        core.add(request("a", 640, 1, hashes(1, 10), 0));
        Run first = runToIdle(core, 0);
        core.add(request("b", 640, 1, hashes(1, 10), first.endMs));
        Run second = runToIdle(core, first.endMs);
        assertThat(second.steps.get(0).prefillTokens()).isEqualTo(64);
        assertThat(second.tokens.get("b#1")).isEqualTo(1);
    }

    @Test
    void shouldRunSeveralRequestsInOneBatch() {
        EngineCore core = new EngineCore(CostModel.llama8bH100(), EngineLimits.defaults());
        for (int i = 0; i < 10; i++) {
            core.add(request("r" + i, 200, 20, hashes(100L * i, 3), 0));
        }
        Run run = runToIdle(core, 0);

        assertThat(run.steps.get(0).scheduledRequests()).isEqualTo(10);
        assertThat(run.steps.get(1).decodeSequences()).isEqualTo(10);
        assertThat(run.steps).hasSize(20);
        assertThat(run.finished).hasSize(10);
        EngineCore alone = new EngineCore(CostModel.llama8bH100(), EngineLimits.defaults());
        alone.add(request("solo", 200, 20, hashes(5000, 3), 0));
        assertThat(run.endMs).isLessThan(3 * runToIdle(alone, 0).endMs);
    }

    @Test
    void shouldChunkALongPromptAcrossSteps() {
        EngineCore core = new EngineCore(CostModel.llama8bH100(), new EngineLimits(26_000, 256, 8192));
        core.add(request("long", 20_000, 1, new long[0], 0));
        Run run = runToIdle(core, 0);
        assertThat(run.steps).extracting(StepResult::prefillTokens).containsExactly(8192L, 8192L, 3616L);
        assertThat(run.tokens.get("long#1")).isEqualTo(1);
    }

    @Test
    void shouldPreemptWhenKvIsFullAndStillFinishEveryRequestWithAllItsTokens() {
        EngineCore core = new EngineCore(CostModel.llama8bH100(), new EngineLimits(64, 256, 8192));
        for (int i = 0; i < 8; i++) {
            core.add(request("r" + i, 100, 150, hashes(1000L * i, 1), 0));
        }
        Run run = runToIdle(core, 0);

        assertThat(run.preempted).isPositive();
        assertThat(run.finished).hasSize(8);
        for (int i = 0; i < 8; i++) {
            assertThat(run.tokens.get("r" + i + "#1")).as("tokens of r" + i).isEqualTo(150);
            assertThat(run.finished.get("r" + i + "#1").usage().completionTokens()).isEqualTo(150);
        }
        assertThat(core.kvPool().referencedBlocks()).isZero();
    }

    @Test
    void shouldPreemptTheNewestRunningRequest() {
        EngineCore core = new EngineCore(CostModel.llama8bH100(), new EngineLimits(20, 256, 8192));
        core.add(request("old", 144, 100, new long[0], 0));
        core.add(request("new", 144, 100, new long[0], 0));
        long now = 0;
        List<String> preempted = new ArrayList<>();
        while (preempted.isEmpty() && core.hasWork()) {
            StepResult step = core.step(now);
            preempted.addAll(step.preempted());
            now = step.endMs();
        }
        assertThat(preempted).containsExactly("new#1");
    }

    @Test
    void shouldFreeAllBlocksOnAbort() {
        EngineCore core = new EngineCore(CostModel.llama8bH100(), EngineLimits.defaults());
        core.add(request("a", 1000, 50, new long[0], 0));
        core.add(request("b", 1000, 50, new long[0], 0));
        core.step(0);
        core.step(30);
        assertThat(core.kvPool().referencedBlocks()).isPositive();

        assertThat(core.abort("a")).isEqualTo(1);
        assertThat(core.abort("b")).isEqualTo(1);

        assertThat(core.kvPool().referencedBlocks()).isZero();
        assertThat(core.kvPool().freeBlocks()).isEqualTo(core.kvPool().capacity());
        assertThat(core.hasWork()).isFalse();
    }

    @Test
    void shouldKeepAbortedPrefixBlocksCachedButUnpinned() {
        EngineCore core = new EngineCore(CostModel.llama8bH100(), EngineLimits.defaults());
        core.add(request("a", 640, 50, hashes(7, 10), 0));
        core.step(0);
        core.abort("a");
        assertThat(core.prefixCache().cachedBlocks()).isEqualTo(10);
        assertThat(core.kvPool().referencedBlocks()).isZero();
        assertThat(core.prefixCache().evictablePages()).isEqualTo(40);
    }

    @Test
    void shouldRefuseARequestThatCanNeverFit() {
        EngineCore core = new EngineCore(CostModel.llama8bH100(), new EngineLimits(10, 256, 8192));
        assertThatThrownBy(() -> core.add(request("big", 1000, 10, new long[0], 0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("KV blocks");
    }

    @Test
    void shouldReportLoadInStats() {
        EngineCore core = new EngineCore(CostModel.llama8bH100(), new EngineLimits(26_000, 2, 8192));
        for (int i = 0; i < 4; i++) {
            core.add(request("r" + i, 1000, 10, new long[0], 0));
        }
        assertThat(core.stats().waitingRequests()).isEqualTo(4);
        assertThat(core.stats().queuedPrefillTokens()).isEqualTo(4000);
        StepResult step = core.step(0);
        assertThat(core.stats().runningRequests()).isEqualTo(2);
        assertThat(core.stats().runningDecode()).isEqualTo(2);
        assertThat(core.stats().waitingRequests()).isEqualTo(2);
        assertThat(core.stats().queuedPrefillTokens()).isEqualTo(2000);
        assertThat(core.stats().kvBlocksUsed()).isEqualTo(2L * KvBlockPool.pagesFor(1000));
        assertThat(core.stats().tokensPerSecond()).isPositive();
        assertThat(step.tokensByKey()).hasSize(2);
    }

    @Test
    void shouldReportTheAttentionTheQueuedPrefillOwesToWhatIsAlreadyInKv() {
        EngineCore core = new EngineCore(CostModel.llama8bH100(), EngineLimits.defaults());
        core.add(request("first", 4096, 1, hashes(1, 64), 0));
        long now = runToIdle(core, 0).steps.get(0).endMs() + 1_000;
        // a 20,000-token prompt prefills its first 8,192-token chunk; a prompt whose first 4,096 tokens are cached waits
        core.add(request("long", 20_000, 1, hashes(1_000, 313), now));
        core.step(now);
        core.add(request("warm", 5_000, 1, LongStream.concat(LongStream.of(hashes(1, 64)), LongStream.of(hashes(5_000, 15))).toArray(),
                now));

        EngineStats stats = core.stats();

        assertThat(stats.queuedPrefillTokens()).isEqualTo(11_808 + 904);
        // each prompt's tokens left * (its tokens in KV + half those left), as a step charges their chunks' attention
        assertThat(stats.queuedPrefillAttention()).isEqualTo(11_808L * (8_192 + 5_904) + 904L * (4_096 + 452));
    }
}
