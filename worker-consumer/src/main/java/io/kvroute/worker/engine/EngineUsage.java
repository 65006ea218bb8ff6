package io.kvroute.worker.engine;

/**
 * Token counts of one finished request, as reported in its terminal event, and how its run went.
 *
 * @param cachedTokens     prompt tokens not recomputed: prefix hits on the GPU plus prefix blocks
 *                         loaded from the host tier
 * @param hostCachedTokens the part of {@code cachedTokens} loaded from the host tier
 * @param timing           the worker's timing of the run ({@link RunTiming#UNKNOWN} when not observed)
 */
public record EngineUsage(int promptTokens, int completionTokens, int cachedTokens, int hostCachedTokens, RunTiming timing) {

    public EngineUsage {
        timing = timing == null ? RunTiming.UNKNOWN : timing;
    }

    /** Usage whose run was not timed. */
    public EngineUsage(int promptTokens, int completionTokens, int cachedTokens, int hostCachedTokens) {
        this(promptTokens, completionTokens, cachedTokens, hostCachedTokens, RunTiming.UNKNOWN);
    }

    /** Usage with no host-tier hits. */
    public EngineUsage(int promptTokens, int completionTokens, int cachedTokens) {
        this(promptTokens, completionTokens, cachedTokens, 0);
    }

    public EngineUsage withTiming(RunTiming value) {
        return new EngineUsage(promptTokens, completionTokens, cachedTokens, hostCachedTokens, value);
    }
}
