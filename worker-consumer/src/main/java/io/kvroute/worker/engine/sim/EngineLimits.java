package io.kvroute.worker.engine.sim;

/**
 * The scheduler bounds of a simulated engine: vLLM V1's defaults on a GPU of H100 class with the
 * 256-sequence cap of smaller deployments, and optionally a host-DRAM prefix tier.
 *
 * @param kvBlocks           KV pages of {@value KvBlockPool#PAGE_TOKENS} tokens on the GPU
 * @param maxRunning         sequences in the running batch
 * @param maxBatchedTokens   tokens computed per step (prefill chunks plus one per decode)
 * @param hostKvBlocks       pages of the {@link HostKvTier} that keeps prefix blocks evicted from
 *                           the GPU; 0 = no host tier (evicted blocks are lost). 65,536 pages ≈ 1M
 *                           tokens ≈ 128 GiB of host DRAM for Llama-3.1-8B
 */
public record EngineLimits(int kvBlocks, int maxRunning, int maxBatchedTokens, int hostKvBlocks) {
    public static final int DEFAULT_MAX_RUNNING = 256;
    public static final int DEFAULT_MAX_BATCHED_TOKENS = 8192;
    public static final int DEFAULT_HOST_KV_BLOCKS = 0;

    public EngineLimits {
        if (kvBlocks < 1 || maxRunning < 1 || maxBatchedTokens < 1) {
            throw new IllegalArgumentException("engine limits must be positive: " + kvBlocks + " KV blocks, "
                    + maxRunning + " running, " + maxBatchedTokens + " batched tokens");
        }
        if (hostKvBlocks < 0) {
            throw new IllegalArgumentException("host KV blocks must not be negative, was " + hostKvBlocks);
        }
    }

    /** Limits without a host tier. */
    public EngineLimits(int kvBlocks, int maxRunning, int maxBatchedTokens) {
        this(kvBlocks, maxRunning, maxBatchedTokens, DEFAULT_HOST_KV_BLOCKS);
    }

    public static EngineLimits defaults() {
        return new EngineLimits(KvBlockPool.DEFAULT_CAPACITY_BLOCKS, DEFAULT_MAX_RUNNING, DEFAULT_MAX_BATCHED_TOKENS);
    }

    /** These limits with a host tier of {@code pages} pages (0 = none). */
    public EngineLimits withHostKvBlocks(int pages) {
        return new EngineLimits(kvBlocks, maxRunning, maxBatchedTokens, pages);
    }
}
