package io.kvroute.worker.engine;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * An engine behind a pool quota, as a provider account or a shared GPU pool imposes: requests per
 * minute and tokens per minute (prompt + max output tokens, reserved when a request starts). Each
 * is a bucket holding one minute's allowance, refilled continuously. A request the buckets cannot
 * cover waits here, in arrival order, and starts when they have refilled; one larger than a whole
 * minute's allowance starts when the buckets are full and leaves them in debt.
 *
 * <p>While anything waits, {@link #rateLimitedUntilMs()} says when the next can start and the engine
 * is degraded, so the worker's telemetry turns the router's new work to other pools: the worker's
 * own 429, without asking the server. Waiting requests count as waiting in {@link #snapshot()}, so
 * the worker's consumer back-pressure sees them.
 */
public final class PoolQuotaEngine implements InferenceEngine {
    static final long MINUTE_MS = 60_000;
    private static final long DRAIN_INTERVAL_MS = 50;

    private final InferenceEngine delegate;
    private final Bucket requests;
    private final Bucket tokens;
    private final LongSupplier clock;
    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    private final ScheduledExecutorService drainer;

    private record Waiting(EngineRequest request, EngineListener listener) {
        long tokens() {
            return (long) request.promptTokens() + request.maxTokens();
        }
    }

    /**
     * @param requestsPerMinute 0 or less: no request limit
     * @param tokensPerMinute   0 or less: no token limit
     */
    public PoolQuotaEngine(InferenceEngine delegate, long requestsPerMinute, long tokensPerMinute, LongSupplier clock) {
        this(delegate, requestsPerMinute, tokensPerMinute, clock, true);
    }

    PoolQuotaEngine(InferenceEngine delegate, long requestsPerMinute, long tokensPerMinute, LongSupplier clock, boolean drainOnTimer) {
        this.delegate = delegate;
        this.clock = clock;
        long now = clock.getAsLong();
        this.requests = new Bucket(requestsPerMinute, now);
        this.tokens = new Bucket(tokensPerMinute, now);
        this.drainer = drainOnTimer ? Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "pool-quota");
            t.setDaemon(true);
            return t;
        }) : null;
        if (drainer != null) {
            drainer.scheduleWithFixedDelay(this::startDue, DRAIN_INTERVAL_MS, DRAIN_INTERVAL_MS, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void submit(EngineRequest request, EngineListener listener) {
        Waiting entry = new Waiting(request, listener);
        synchronized (this) {
            if (!waiting.isEmpty() || !take(entry, clock.getAsLong())) {
                waiting.add(entry);
                return;
            }
        }
        delegate.submit(request, listener);
    }

    /**
     * Starts the waiting requests the buckets now cover, oldest first; under the lock, so a cancel
     * cannot fall between taking a request off the queue and handing it on.
     */
    synchronized void startDue() {
        Waiting next;
        while ((next = waiting.peek()) != null && take(next, clock.getAsLong())) {
            waiting.poll();
            try {
                delegate.submit(next.request(), next.listener());
            } catch (RuntimeException e) {
                next.listener().onFailed("engine refused the request: " + e.getMessage());
            }
        }
    }

    private boolean take(Waiting entry, long now) {
        requests.refill(now);
        tokens.refill(now);
        if (!requests.covers(1) || !tokens.covers(entry.tokens())) {
            return false;
        }
        requests.take(1);
        tokens.take(entry.tokens());
        return true;
    }

    @Override
    public void cancel(String requestId) {
        synchronized (this) {
            Iterator<Waiting> it = waiting.iterator();
            while (it.hasNext()) {
                if (it.next().request().requestId().equals(requestId)) {
                    it.remove();
                }
            }
        }
        delegate.cancel(requestId);
    }

    @Override
    public EngineStats snapshot() {
        return delegate.snapshot().withExtraWaiting(waitingHere());
    }

    @Override
    public int waitingRequests() {
        return delegate.waitingRequests() + waitingHere();
    }

    private synchronized int waitingHere() {
        return waiting.size();
    }

    @Override
    public KvChanges drainKvChanges() {
        return delegate.drainKvChanges();
    }

    /** The server's own limit, or while requests wait here, when the quota will cover the oldest of them. */
    @Override
    public long rateLimitedUntilMs() {
        long own;
        synchronized (this) {
            Waiting next = waiting.peek();
            if (next == null) {
                own = 0;
            } else {
                long now = clock.getAsLong();
                requests.refill(now);
                tokens.refill(now);
                own = Math.max(now + requests.msUntil(1), now + tokens.msUntil(next.tokens()));
            }
        }
        return Math.max(own, delegate.rateLimitedUntilMs());
    }

    @Override
    public boolean isDegraded() {
        return waitingHere() > 0 || delegate.isDegraded();
    }

    @Override
    public String unreachable() {
        return delegate.unreachable();
    }

    @Override
    public void close() {
        if (drainer != null) {
            drainer.shutdownNow();
        }
        delegate.close();
    }

    /** A token bucket holding one minute's allowance; unlimited when the allowance is 0 or less. */
    private static final class Bucket {
        private final long perMinute;
        private double level;
        private long refilledAtMs;

        Bucket(long perMinute, long nowMs) {
            this.perMinute = perMinute;
            this.level = perMinute;
            this.refilledAtMs = nowMs;
        }

        void refill(long nowMs) {
            if (perMinute <= 0 || nowMs <= refilledAtMs) {
                return;
            }
            level = Math.min(perMinute, level + (double) perMinute * (nowMs - refilledAtMs) / MINUTE_MS);
            refilledAtMs = nowMs;
        }

        /** Covered if the bucket holds {@code amount}, or is full (a request bigger than a minute's allowance). */
        boolean covers(long amount) {
            return perMinute <= 0 || level >= Math.min(amount, perMinute);
        }

        void take(long amount) {
            if (perMinute > 0) {
                level -= amount;
            }
        }

        long msUntil(long amount) {
            if (covers(amount)) {
                return 0;
            }
            double missing = Math.min(amount, perMinute) - level;
            return (long) Math.ceil(missing * MINUTE_MS / perMinute);
        }
    }
}
