package io.kvroute.worker.engine.sim;

/**
 * The scheduler bounds of a simulated engine: vLLM V1's defaults on a GPU of H100 class with the
 * 256-sequence cap of smaller deployments.
 *
 * @param kvBlocks           KV pages of {@value KvBlockPool#PAGE_TOKENS} tokens
 * @param maxRunning         sequences in the running batch
 * @param maxBatchedTokens   tokens computed per step (prefill chunks plus one per decode)
 */
public record EngineLimits(int kvBlocks, int maxRunning, int maxBatchedTokens) {
    public static final int DEFAULT_MAX_RUNNING = 256;
    public static final int DEFAULT_MAX_BATCHED_TOKENS = 8192;

    public EngineLimits {
        if (kvBlocks < 1 || maxRunning < 1 || maxBatchedTokens < 1) {
            throw new IllegalArgumentException("engine limits must be positive: " + kvBlocks + " KV blocks, "
                    + maxRunning + " running, " + maxBatchedTokens + " batched tokens");
        }
    }

    public static EngineLimits defaults() {
        return new EngineLimits(KvBlockPool.DEFAULT_CAPACITY_BLOCKS, DEFAULT_MAX_RUNNING, DEFAULT_MAX_BATCHED_TOKENS);
    }
}
