package io.kvroute.worker.engine;

import java.util.function.LongSupplier;

/**
 * Wraps a worker's engine so that what the worker reports of it is only what a worker in front of a
 * real server can know: the engine's gauges ({@link EngineStats#observable}) and the worker's own
 * record of the requests it sent ({@link ObservedRequests}). Each finished run's usage carries its
 * {@link RunTiming}, from which routers learn the engine's speed. The simulated GPU and an
 * OpenAI-compatible server are wrapped alike, so their telemetry is filled by this one path.
 */
public final class ObservingEngine implements InferenceEngine {
    private final InferenceEngine delegate;
    private final LongSupplier clock;
    private final ObservedRequests observed = new ObservedRequests();

    public ObservingEngine(InferenceEngine delegate, LongSupplier clock) {
        this.delegate = delegate;
        this.clock = clock;
    }

    @Override
    public void submit(EngineRequest request, EngineListener listener) {
        String key = request.key();
        synchronized (observed) {
            observed.sent(key, request.promptTokens(), clock.getAsLong());
        }
        delegate.submit(request, new Observed(key, listener));
    }

    @Override
    public void cancel(String requestId) {
        delegate.cancel(requestId);
        synchronized (observed) {
            observed.cancelled(requestId);
        }
    }

    @Override
    public EngineStats snapshot() {
        EngineStats server = delegate.snapshot();
        synchronized (observed) {
            return server.observable(observed.load());
        }
    }

    @Override
    public int waitingRequests() {
        return delegate.waitingRequests();
    }

    @Override
    public KvChanges drainKvChanges() {
        return delegate.drainKvChanges();
    }

    @Override
    public long rateLimitedUntilMs() {
        return delegate.rateLimitedUntilMs();
    }

    @Override
    public boolean isDegraded() {
        return delegate.isDegraded();
    }

    @Override
    public String unreachable() {
        return delegate.unreachable();
    }

    @Override
    public void close() {
        delegate.close();
    }

    /** The caller's listener, with each event first noted in the worker's record. */
    private final class Observed implements EngineListener {
        private final String key;
        private final EngineListener listener;

        Observed(String key, EngineListener listener) {
            this.key = key;
            this.listener = listener;
        }

        @Override
        public void onFirstToken(long ttftMs) {
            synchronized (observed) {
                observed.firstToken(key, clock.getAsLong());
            }
            listener.onFirstToken(ttftMs);
        }

        @Override
        public void onTokens(String textDelta, int count) {
            synchronized (observed) {
                observed.tokens(key, count);
            }
            listener.onTokens(textDelta, count);
        }

        @Override
        public void onFinished(String finishReason, EngineUsage usage, long ttftMs) {
            RunTiming timing;
            synchronized (observed) {
                timing = observed.finished(key, usage.completionTokens(), clock.getAsLong());
            }
            listener.onFinished(finishReason, usage.withTiming(timing), ttftMs);
        }

        @Override
        public void onFailed(String error) {
            forget();
            listener.onFailed(error);
        }

        @Override
        public void onFailure(EngineFailure failure) {
            forget();
            listener.onFailure(failure);
        }

        private void forget() {
            synchronized (observed) {
                observed.dropped(key);
            }
        }
    }
}
