package io.kvroute.worker.engine.sim;

import io.kvroute.worker.engine.EngineRequest;
import io.kvroute.worker.engine.EngineStats;
import io.kvroute.worker.engine.EngineUsage;
import io.kvroute.worker.engine.KvChanges;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A deterministic model of a vLLM V1 engine, advanced one step at a time by its caller (a thread
 * sleeping in real time, or a discrete-event simulator in virtual time). Each step schedules
 * running requests first (one token per decoding sequence, chunks of prefill), then admits
 * waiting ones while the token budget, the running-batch bound and KV room allow, reusing cached
 * prefix blocks. When a running request cannot get a KV page, the newest running request is
 * preempted by recompute: its KV is freed and it goes back to the head of the queue, keeping
 * the tokens it already produced. Prompt blocks are cached only when whole and page-aligned
 * ({@code blockTokens} a multiple of {@value KvBlockPool#PAGE_TOKENS}); a prompt whose every block
 * is cached still recomputes its last block, as vLLM does. With a host tier
 * ({@link EngineLimits#hostKvBlocks()} &gt; 0), prefix blocks evicted from the GPU are kept in
 * host memory; an admitted request uses its leading GPU hits, then loads the host blocks that
 * follow them into newly allocated GPU pages (where they are cached again, pinned by the request)
 * instead of prefilling them, and the step that admits it pays the transfer
 * ({@link CostModel#hostLoadMsPerToken()}). Every request produces exactly
 * {@code maxTokens} tokens (finish reason {@value #FINISH_LENGTH}). Uses no clock: time is
 * passed in. Not thread-safe.
 */
public final class EngineCore {
    public static final String FINISH_LENGTH = "length";
    static final long THROUGHPUT_WINDOW_MS = 2_000;

    private final CostModel costModel;
    private final EngineLimits limits;
    private final KvBlockPool pool;
    private final PrefixCache cache;
    private final Deque<Sequence> waiting = new ArrayDeque<>();
    private final List<Sequence> running = new ArrayList<>();
    private final Deque<long[]> recentTokens = new ArrayDeque<>();
    private long recentTokenSum;
    private long admittedPromptTokens;
    private long admittedCachedTokens;
    private long admittedHostCachedTokens;

    public EngineCore(CostModel costModel, EngineLimits limits) {
        this.costModel = costModel;
        this.limits = limits;
        this.pool = new KvBlockPool(limits.kvBlocks());
        this.cache = new PrefixCache(pool, new HostKvTier(limits.hostKvBlocks()));
    }

    /** Queues a request. Throws IllegalArgumentException if it could never fit in the KV pool. */
    public void add(EngineRequest request) {
        int pagesNeeded = KvBlockPool.pagesFor((long) request.promptTokens() + request.maxTokens() - 1);
        if (pagesNeeded > pool.capacity()) {
            throw new IllegalArgumentException("request needs " + pagesNeeded + " KV blocks for "
                    + request.promptTokens() + " prompt + " + request.maxTokens() + " output tokens; the pool has "
                    + pool.capacity());
        }
        waiting.addLast(new Sequence(request));
    }

    /** Removes every attempt of {@code requestId}, freeing its KV; returns how many were removed. */
    public int abort(String requestId) {
        int removed = 0;
        for (Iterator<Sequence> it = waiting.iterator(); it.hasNext(); ) {
            if (it.next().request.requestId().equals(requestId)) {
                it.remove();
                removed++;
            }
        }
        for (Iterator<Sequence> it = running.iterator(); it.hasNext(); ) {
            Sequence seq = it.next();
            if (seq.request.requestId().equals(requestId)) {
                seq.freeKv();
                it.remove();
                removed++;
            }
        }
        return removed;
    }

    public boolean hasWork() {
        return !running.isEmpty() || !waiting.isEmpty();
    }

    /** Runs one step starting at {@code nowMs}; an idle result (duration 0) if there was nothing to do. */
    public StepResult step(long nowMs) {
        List<Scheduled> scheduled = new ArrayList<>();
        List<String> preempted = new ArrayList<>();
        int budget = limits.maxBatchedTokens();
        budget = scheduleRunning(scheduled, preempted, budget);
        if (preempted.isEmpty()) {
            admitWaiting(scheduled, budget);
        }
        if (scheduled.isEmpty()) {
            return StepResult.idle(nowMs);
        }
        long prefillTokens = 0;
        long loadedTokens = 0;
        double attention = 0;
        int decodes = 0;
        long decodeContext = 0;
        for (Scheduled s : scheduled) {
            if (s.seq.isDecoding()) {
                decodes++;
                decodeContext += s.seq.computed + 1;
            } else {
                prefillTokens += s.tokens;
                attention += CostModel.prefillAttention(s.tokens, s.seq.computed);
            }
            loadedTokens += s.loadedTokens;
        }
        double durationMs = costModel.stepMs(prefillTokens, attention, decodes, decodeContext, loadedTokens);
        long endMs = nowMs + (long) Math.ceil(durationMs);
        Map<String, Integer> tokens = new LinkedHashMap<>();
        Map<String, Long> firstTokens = new LinkedHashMap<>();
        List<StepResult.Finished> finished = new ArrayList<>();
        for (Scheduled s : scheduled) {
            Sequence seq = s.seq;
            seq.computed += s.tokens;
            seq.storeComputedBlocks();
            if (seq.computed < seq.totalTokens()) {
                continue;
            }
            seq.generated++;
            tokens.put(seq.key, 1);
            if (seq.generated == 1) {
                seq.ttftMs = endMs - seq.request.arrivalMs();
                firstTokens.put(seq.key, seq.ttftMs);
            }
            if (seq.generated == seq.request.maxTokens()) {
                seq.freeKv();
                running.remove(seq);
                finished.add(new StepResult.Finished(seq.request, FINISH_LENGTH,
                        new EngineUsage(seq.request.promptTokens(), seq.generated, seq.firstCachedTokens,
                                seq.firstHostCachedTokens), seq.ttftMs));
            }
        }
        recordThroughput(endMs, tokens.size());
        return new StepResult(nowMs, durationMs, tokens, firstTokens, finished, preempted, prefillTokens, decodes,
                scheduled.size(), loadedTokens);
    }

    private int scheduleRunning(List<Scheduled> scheduled, List<String> preempted, int budget) {
        for (int i = 0; i < running.size() && budget > 0; i++) {
            Sequence seq = running.get(i);
            int tokens = Math.min(seq.totalTokens() - seq.computed, budget);
            boolean fits = false;
            while (!fits) {
                if (reserve(seq, seq.computed + tokens)) {
                    fits = true;
                } else {
                    Sequence victim = running.remove(running.size() - 1);
                    preempt(victim);
                    preempted.add(victim.key);
                    if (victim == seq) {
                        break;
                    }
                }
            }
            if (fits) {
                scheduled.add(new Scheduled(seq, tokens, 0));
                budget -= tokens;
            }
        }
        return budget;
    }

    private void admitWaiting(List<Scheduled> scheduled, int budget) {
        while (budget > 0 && running.size() < limits.maxRunning() && !waiting.isEmpty()) {
            Sequence seq = waiting.peekFirst();
            seq.acquireCachedPrefix();
            int tokens = Math.min(seq.totalTokens() - seq.computed, budget);
            boolean fits = reserve(seq, seq.computed + tokens);
            cache.hostTier().unpin(seq.loading);
            if (!fits) {
                seq.loading = List.of();
                seq.freeKv();
                seq.computed = 0;
                return;
            }
            seq.storeComputedBlocks();
            int loadedTokens = seq.loading.size() * seq.request.blockTokens();
            seq.loading = List.of();
            waiting.removeFirst();
            if (!seq.admittedBefore) {
                seq.admittedBefore = true;
                seq.firstCachedTokens = seq.computed;
                seq.firstHostCachedTokens = loadedTokens;
                admittedPromptTokens += seq.request.promptTokens();
                admittedCachedTokens += seq.firstCachedTokens;
                admittedHostCachedTokens += seq.firstHostCachedTokens;
            }
            running.add(seq);
            scheduled.add(new Scheduled(seq, tokens, loadedTokens));
            budget -= tokens;
        }
    }

    /** Gives {@code seq} pages for {@code tokens} tokens, evicting cached blocks if needed; all or nothing. */
    private boolean reserve(Sequence seq, long tokens) {
        int needed = KvBlockPool.pagesFor(tokens) - seq.pageCount;
        if (needed <= 0) {
            return true;
        }
        if (pool.freeBlocks() + cache.evictablePages() < needed) {
            return false;
        }
        for (int i = 0; i < needed; i++) {
            int page = pool.allocate();
            while (page < 0 && cache.evictOne()) {
                page = pool.allocate();
            }
            seq.addPage(page);
        }
        return true;
    }

    private void preempt(Sequence seq) {
        seq.freeKv();
        seq.computed = 0;
        waiting.addFirst(seq);
    }

    private void recordThroughput(long endMs, int tokens) {
        recentTokens.addLast(new long[] {endMs, tokens});
        recentTokenSum += tokens;
        while (!recentTokens.isEmpty() && recentTokens.peekFirst()[0] <= endMs - THROUGHPUT_WINDOW_MS) {
            recentTokenSum -= recentTokens.removeFirst()[1];
        }
    }

    public KvChanges drainKvChanges() {
        return cache.drainChanges();
    }

    /** The engine's load now. */
    public EngineStats stats() {
        int prefill = 0;
        long queuedPrefill = 0;
        double queuedAttention = 0;
        for (Sequence seq : running) {
            if (!seq.isDecoding()) {
                prefill++;
                long left = seq.totalTokens() - seq.computed;
                queuedPrefill += left;
                queuedAttention += CostModel.prefillAttention(left, seq.computed);
            }
        }
        for (Sequence seq : waiting) {
            int gpuBlocks = cache.matchPrefix(seq.hashes, seq.blocks.length);
            int cachedBlocks = gpuBlocks + cache.matchHost(seq.hashes, gpuBlocks, seq.blocks.length);
            long cachedTokens = Math.min(seq.totalTokens(), (long) cachedBlocks * seq.request.blockTokens());
            long left = seq.totalTokens() - cachedTokens;
            queuedPrefill += left;
            queuedAttention += CostModel.prefillAttention(left, cachedTokens);
        }
        double hitRate = admittedPromptTokens == 0 ? 0.0 : (double) admittedCachedTokens / admittedPromptTokens;
        double hostHitRate = admittedPromptTokens == 0 ? 0.0 : (double) admittedHostCachedTokens / admittedPromptTokens;
        double tokensPerSecond = recentTokenSum * 1000.0 / THROUGHPUT_WINDOW_MS;
        HostKvTier host = cache.hostTier();
        return new EngineStats(running.size(), waiting.size(), prefill, running.size() - prefill, queuedPrefill,
                pool.referencedBlocks(), pool.capacity(), KvBlockPool.PAGE_TOKENS, limits.maxRunning(), hitRate,
                tokensPerSecond, host.usedPages(), host.capacityPages(), hostHitRate, (long) queuedAttention);
    }

    /**
     * Throws IllegalStateException if KV bookkeeping is inconsistent: a GPU page neither free,
     * referenced nor cached; page references not matching the pages running requests hold; a cached
     * block's page counts disagreeing with its users; the host tier over its bound or left pinned.
     */
    public void checkInvariants() {
        cache.checkInvariants(!hasWork());
        long held = 0;
        for (Sequence seq : running) {
            held += seq.pageCount;
        }
        long references = 0;
        for (int page = 0; page < pool.capacity(); page++) {
            references += pool.refCount(page);
        }
        if (held != references) {
            throw new IllegalStateException("running requests hold " + held + " pages but the pool counts "
                    + references + " references");
        }
        for (Sequence seq : waiting) {
            if (seq.pageCount != 0 || seq.sharedBlocks != 0) {
                throw new IllegalStateException("waiting request " + seq.key + " holds " + seq.pageCount + " pages");
            }
        }
    }

    public int runningCount() {
        return running.size();
    }

    public int waitingCount() {
        return waiting.size();
    }

    /** The prefix cache, for inspection. */
    public PrefixCache prefixCache() {
        return cache;
    }

    /** The KV pool, for inspection. */
    public KvBlockPool kvPool() {
        return pool;
    }

    private record Scheduled(Sequence seq, int tokens, int loadedTokens) {
    }

    /** One request's progress and the KV it holds. */
    private final class Sequence {
        final EngineRequest request;
        final long[] hashes;
        final String key;
        final int pagesPerBlock;
        final PrefixCache.Entry[] blocks;
        int[] pages = new int[8];
        int pageCount;
        /** Leading hash blocks whose pages belong to cache entries, not to this request alone. */
        int sharedBlocks;
        int computed;
        int generated;
        long ttftMs = -1;
        boolean admittedBefore;
        int firstCachedTokens;
        int firstHostCachedTokens;
        /** Host-tier blocks being loaded during admission, pinned there until the load has pages. */
        List<Long> loading = List.of();

        Sequence(EngineRequest request) {
            this.request = request;
            this.hashes = request.prefixBlockHashes();
            this.key = request.key();
            int blockTokens = request.blockTokens();
            this.pagesPerBlock = blockTokens % KvBlockPool.PAGE_TOKENS == 0 ? blockTokens / KvBlockPool.PAGE_TOKENS : 0;
            this.blocks = new PrefixCache.Entry[cacheableBlocks()];
        }

        int totalTokens() {
            return request.promptTokens() + generated;
        }

        boolean isDecoding() {
            return generated > 0 && totalTokens() - computed == 1;
        }

        /** Full prompt blocks that can be cached: only page-aligned blocks inside the prompt. */
        int cacheableBlocks() {
            if (pagesPerBlock == 0) {
                return 0;
            }
            return Math.min(request.blockCount(), request.promptTokens() / request.blockTokens());
        }

        /**
         * Pins the leading blocks cached on the GPU and, in the host tier, the blocks right after
         * them ({@link #loading}); counts both as computed.
         */
        void acquireCachedPrefix() {
            int hits = cache.matchPrefix(hashes, blocks.length);
            int hostHits = cache.matchHost(hashes, hits, blocks.length);
            if ((long) (hits + hostHits) * request.blockTokens() >= totalTokens()) {
                if (hostHits > 0) {
                    hostHits--;
                } else {
                    hits--;
                }
            }
            for (int b = 0; b < hits; b++) {
                PrefixCache.Entry entry = cache.acquire(hashes[b]);
                blocks[b] = entry;
                for (int page : entry.pages()) {
                    addPage(page);
                }
            }
            sharedBlocks = hits;
            List<Long> load = new ArrayList<>(hostHits);
            for (int b = hits; b < hits + hostHits; b++) {
                load.add(hashes[b]);
            }
            cache.hostTier().pin(load);
            loading = load;
            computed = (hits + hostHits) * request.blockTokens();
        }

        void addPage(int page) {
            if (pageCount == pages.length) {
                pages = Arrays.copyOf(pages, pages.length * 2);
            }
            pages[pageCount++] = page;
        }

        /** Hands blocks completed by the last step to the prefix cache (or to an identical cached block). */
        void storeComputedBlocks() {
            while (sharedBlocks < blocks.length && computed >= (sharedBlocks + 1) * request.blockTokens()) {
                int b = sharedBlocks;
                int from = b * pagesPerBlock;
                int[] own = Arrays.copyOfRange(pages, from, from + pagesPerBlock);
                PrefixCache.Entry entry = cache.store(hashes[b], own);
                if (entry == null) {
                    entry = cache.acquire(hashes[b]);
                    int[] shared = entry.pages();
                    for (int i = 0; i < pagesPerBlock; i++) {
                        releasePrivate(own[i]);
                        pages[from + i] = shared[i];
                    }
                }
                blocks[b] = entry;
                sharedBlocks++;
            }
        }

        void freeKv() {
            int sharedPages = sharedBlocks * pagesPerBlock;
            for (int p = pageCount - 1; p >= sharedPages; p--) {
                releasePrivate(pages[p]);
            }
            for (int b = sharedBlocks - 1; b >= 0; b--) {
                cache.release(blocks[b]);
                blocks[b] = null;
            }
            pageCount = 0;
            sharedBlocks = 0;
        }

        private void releasePrivate(int page) {
            if (pool.release(page) == 0) {
                pool.free(page);
            }
        }
    }
}
