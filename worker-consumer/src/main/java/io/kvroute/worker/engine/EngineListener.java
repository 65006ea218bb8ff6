package io.kvroute.worker.engine;

/**
 * Receives the progress of one submitted request. Called from the engine's own thread, in order;
 * implementations must not block. After {@link #onFinished} or {@link #onFailed} nothing more is
 * called; after a cancel, calls may still arrive and are to be ignored by the caller.
 */
public interface EngineListener {

    /**
     * The first output token was produced; {@code ttftMs} counts from arrival (plus network delay) in
     * the simulated engine, and from sending the request to the server in engines that drive one.
     */
    void onFirstToken(long ttftMs);

    /** {@code count} new tokens whose text is {@code textDelta}. */
    void onTokens(String textDelta, int count);

    void onFinished(String finishReason, EngineUsage usage, long ttftMs);

    void onFailed(String error);

    /**
     * The request failed, classified; listeners that tell retryable failures from rejections
     * override this. By default it reports {@link EngineFailure#describe()} to {@link #onFailed(String)}.
     */
    default void onFailure(EngineFailure failure) {
        onFailed(failure.describe());
    }
}
