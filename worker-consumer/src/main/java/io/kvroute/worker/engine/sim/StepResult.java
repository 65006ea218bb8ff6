package io.kvroute.worker.engine.sim;

import io.kvroute.worker.engine.EngineRequest;
import io.kvroute.worker.engine.EngineUsage;
import java.util.List;
import java.util.Map;

/**
 * What one engine step did. Times are in the caller's clock: the step starts at {@code startMs}
 * and its outputs exist at {@link #endMs()}.
 *
 * @param startMs          when the step began
 * @param durationMs       the step's cost-model time; 0 when nothing was scheduled
 * @param tokensByKey      output tokens produced per request key ({@link EngineRequest#key()})
 * @param firstTokenTtftMs requests whose first token came in this step, with their TTFT
 * @param finished         requests that produced their last token in this step
 * @param preempted        keys of requests preempted (KV freed, back to waiting) in this step
 * @param prefillTokens    uncached tokens prefilled in this step
 * @param decodeSequences  sequences decoded in this step
 * @param scheduledRequests requests that computed tokens in this step (the batch)
 * @param hostLoadedTokens prefix tokens loaded from the host tier in this step (their transfer
 *                         time is part of {@code durationMs})
 */
public record StepResult(long startMs, double durationMs, Map<String, Integer> tokensByKey,
                         Map<String, Long> firstTokenTtftMs, List<Finished> finished, List<String> preempted,
                         long prefillTokens, int decodeSequences, int scheduledRequests, long hostLoadedTokens) {

    /** A step that loaded nothing from the host tier. */
    public StepResult(long startMs, double durationMs, Map<String, Integer> tokensByKey,
                      Map<String, Long> firstTokenTtftMs, List<Finished> finished, List<String> preempted,
                      long prefillTokens, int decodeSequences, int scheduledRequests) {
        this(startMs, durationMs, tokensByKey, firstTokenTtftMs, finished, preempted, prefillTokens, decodeSequences,
                scheduledRequests, 0);
    }

    /** A request that finished, with its terminal figures. */
    public record Finished(EngineRequest request, String finishReason, EngineUsage usage, long ttftMs) {
    }

    public boolean idle() {
        return durationMs == 0.0;
    }

    public long endMs() {
        return startMs + (long) Math.ceil(durationMs);
    }

    static StepResult idle(long nowMs) {
        return new StepResult(nowMs, 0.0, Map.of(), Map.of(), List.of(), List.of(), 0, 0, 0);
    }
}
