package io.kvroute.worker.engine;

/**
 * Runs inference for a worker. Engines know nothing of routing or Kafka: they take requests,
 * report progress to a listener, and expose their load. Implementations are thread-safe.
 */
public interface InferenceEngine extends AutoCloseable {

    /** Accepts a request; progress arrives on {@code listener} from the engine's thread. */
    void submit(EngineRequest request, EngineListener listener);

    /** Stops every attempt of {@code requestId} and frees its resources; unknown ids are ignored. */
    void cancel(String requestId);

    EngineStats snapshot();

    /** Requests accepted but not running yet: {@code snapshot().waitingRequests()}, cheaper. */
    default int waitingRequests() {
        return snapshot().waitingRequests();
    }

    /** Prefix-cache changes since the previous call; engines without a visible cache return none. */
    default KvChanges drainKvChanges() {
        return KvChanges.NONE;
    }

    /** Until when (epoch ms) the backing server asked not to be sent more work; 0 when it never did. */
    default long rateLimitedUntilMs() {
        return 0;
    }

    /** True while the engine works but not fully: its server's state is unknown, or it is cooling down after a rate limit. */
    default boolean isDegraded() {
        return false;
    }

    /** Why the engine's server cannot be reached now, or null when it can (or the engine has no server to reach). */
    default String unreachable() {
        return null;
    }

    @Override
    void close();
}
