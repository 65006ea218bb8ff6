package io.kvroute.worker.engine;

/**
 * Token counts of one finished request, as reported in its terminal event.
 *
 * @param cachedTokens     prompt tokens not recomputed: prefix hits on the GPU plus prefix blocks
 *                         loaded from the host tier
 * @param hostCachedTokens the part of {@code cachedTokens} loaded from the host tier
 */
public record EngineUsage(int promptTokens, int completionTokens, int cachedTokens, int hostCachedTokens) {

    /** Usage with no host-tier hits. */
    public EngineUsage(int promptTokens, int completionTokens, int cachedTokens) {
        this(promptTokens, completionTokens, cachedTokens, 0);
    }
}
