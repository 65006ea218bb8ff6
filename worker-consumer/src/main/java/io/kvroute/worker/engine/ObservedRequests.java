package io.kvroute.worker.engine;

import java.util.HashMap;
import java.util.Map;

/**
 * The worker's own record of the requests it has handed to its engine: when each was sent, when
 * its first token came and how many followed. From it come the {@link ObservedLoad} in the
 * worker's telemetry and each finished run's {@link RunTiming}. Knows nothing of the engine, so a
 * real server and the simulated GPU are observed alike. Not thread-safe: callers synchronize.
 */
public final class ObservedRequests {
    /** Weight of the newest request in the recent TTFT and decode-time averages (about the last 20 requests). */
    static final double RECENT_WEIGHT = 0.05;

    private final Map<String, Run> runs = new HashMap<>();
    private long owedTokens;
    private int owedRequests;
    private long decodingContext;
    private int decoding;
    private double recentTtftMs;
    private double decodeMsPerToken;
    /** Prompt tokens of every run that has had its first token: a run's decode carried the prefill of those in between. */
    private long prefilledPromptTokens;

    private static final class Run {
        final long sentMs;
        final int promptTokens;
        final long aheadTokens;
        long firstTokenMs = -1;
        long prefilledAtFirstToken;
        /** What this run adds to {@code decodingContext}: its prompt and the tokens streamed since its first. */
        long context;

        Run(long sentMs, int promptTokens, long aheadTokens) {
            this.sentMs = sentMs;
            this.promptTokens = promptTokens;
            this.aheadTokens = aheadTokens;
        }
    }

    /** {@code key} was handed to the engine at {@code nowMs}; a key already known is left as it is. */
    public void sent(String key, int promptTokens, long nowMs) {
        if (runs.containsKey(key)) {
            return;
        }
        runs.put(key, new Run(nowMs, promptTokens, owedTokens));
        owedTokens += promptTokens;
        owedRequests++;
    }

    /** The first token of {@code key} came at {@code nowMs}; later calls for it are ignored. */
    public void firstToken(String key, long nowMs) {
        Run run = runs.get(key);
        if (run == null || run.firstTokenMs >= 0) {
            return;
        }
        run.firstTokenMs = nowMs;
        run.prefilledAtFirstToken = prefilledPromptTokens;
        prefilledPromptTokens += run.promptTokens;
        owedTokens -= run.promptTokens;
        owedRequests--;
        decoding++;
        run.context = run.promptTokens;
        decodingContext += run.context;
        recentTtftMs = average(recentTtftMs, nowMs - run.sentMs);
    }

    /** {@code count} more tokens of {@code key} were streamed; counted into the decoding context once its first token came. */
    public void tokens(String key, int count) {
        Run run = runs.get(key);
        if (run == null || count <= 0 || run.firstTokenMs < 0) {
            return;
        }
        run.context += count;
        decodingContext += count;
    }

    /**
     * {@code key} finished at {@code nowMs} having generated {@code completionTokens}: forgotten, and its timing
     * returned ({@link RunTiming#UNKNOWN} for a key never sent).
     */
    public RunTiming finished(String key, int completionTokens, long nowMs) {
        Run run = forget(key);
        if (run == null) {
            return RunTiming.UNKNOWN;
        }
        long decodeMs = run.firstTokenMs < 0 ? -1 : nowMs - run.firstTokenMs;
        if (decodeMs >= 0 && completionTokens > 1) {
            decodeMsPerToken = average(decodeMsPerToken, (double) decodeMs / (completionTokens - 1));
        }
        if (run.firstTokenMs < 0) {
            return new RunTiming(-1, -1, run.aheadTokens, -1);
        }
        return new RunTiming(run.firstTokenMs - run.sentMs, decodeMs, run.aheadTokens,
                prefilledPromptTokens - run.prefilledAtFirstToken - run.promptTokens);
    }

    /** {@code key} failed or was cancelled: forgotten, its timing not learnt from. */
    public void dropped(String key) {
        forget(key);
    }

    /** Every run of {@code requestId} was cancelled: forgotten (the engine may never report on them). */
    public void cancelled(String requestId) {
        String prefix = requestId + "#";
        runs.keySet().stream().filter(k -> k.startsWith(prefix)).toList().forEach(this::forget);
    }

    public ObservedLoad load() {
        return new ObservedLoad(owedTokens, owedRequests, decoding, decodingContext, recentTtftMs, decodeMsPerToken);
    }

    private Run forget(String key) {
        Run run = runs.remove(key);
        if (run == null) {
            return null;
        }
        if (run.firstTokenMs < 0) {
            owedTokens -= run.promptTokens;
            owedRequests--;
        } else {
            decoding--;
            decodingContext -= run.context;
        }
        return run;
    }

    private static double average(double current, double sample) {
        return current == 0.0 ? sample : current + RECENT_WEIGHT * (sample - current);
    }
}
