package io.kvroute.worker.engine.sim;

import io.kvroute.worker.engine.EngineListener;
import io.kvroute.worker.engine.EngineRequest;
import io.kvroute.worker.engine.EngineStats;
import io.kvroute.worker.engine.InferenceEngine;
import io.kvroute.worker.engine.KvChanges;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link InferenceEngine} that runs an {@link EngineCore} in real time on its own thread:
 * each step sleeps its cost-model duration, then reports the step's tokens to the listeners.
 * A network delay models a GPU in a remote region: a submitted request reaches the core that
 * many ms later, and the delay is added again to the reported TTFT (the first token's way back).
 */
public final class SimulatedGpuEngine implements InferenceEngine {
    private static final Logger LOG = LoggerFactory.getLogger(SimulatedGpuEngine.class);
    private static final long IDLE_WAIT_MS = 50;

    private final EngineCore core;
    private final long networkDelayMs;
    private final LongSupplier clock;
    private final Object lock = new Object();
    private final ArrayDeque<Pending> inTransit = new ArrayDeque<>();
    private final Map<String, Active> active = new HashMap<>();
    private final Thread thread;
    private volatile boolean closed;

    public SimulatedGpuEngine(CostModel costModel, EngineLimits limits, long networkDelayMs, LongSupplier clock, String name) {
        if (networkDelayMs < 0) {
            throw new IllegalArgumentException("network delay must not be negative, was " + networkDelayMs);
        }
        this.core = new EngineCore(costModel, limits);
        this.networkDelayMs = networkDelayMs;
        this.clock = clock;
        this.thread = new Thread(this::run, "sim-engine-" + name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    @Override
    public void submit(EngineRequest request, EngineListener listener) {
        synchronized (lock) {
            if (closed) {
                listener.onFailed("engine is closed");
                return;
            }
            inTransit.addLast(new Pending(request, listener, clock.getAsLong() + networkDelayMs));
            lock.notifyAll();
        }
    }

    @Override
    public void cancel(String requestId) {
        synchronized (lock) {
            inTransit.removeIf(p -> p.request.requestId().equals(requestId));
            core.abort(requestId);
            active.values().removeIf(a -> a.request.requestId().equals(requestId));
        }
    }

    @Override
    public EngineStats snapshot() {
        synchronized (lock) {
            return core.stats().withExtraWaiting(inTransit.size());
        }
    }

    @Override
    public int waitingRequests() {
        synchronized (lock) {
            return core.waitingCount() + inTransit.size();
        }
    }

    @Override
    public KvChanges drainKvChanges() {
        synchronized (lock) {
            return core.drainKvChanges();
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        while (!closed) {
            try {
                runOnce();
            } catch (InterruptedException e) {
                if (!closed) {
                    LOG.warn("simulated engine interrupted while running; stopping");
                }
                return;
            } catch (RuntimeException e) {
                LOG.error("simulated engine step failed; failing its requests", e);
                failAll(e.toString());
            }
        }
    }

    private void runOnce() throws InterruptedException {
        List<Runnable> rejections = new ArrayList<>();
        StepResult result;
        Map<String, Active> listeners = new HashMap<>();
        synchronized (lock) {
            long now = clock.getAsLong();
            admitArrived(now, rejections);
            if (!core.hasWork()) {
                if (rejections.isEmpty()) {
                    long wait = inTransit.isEmpty() ? IDLE_WAIT_MS : Math.max(1, inTransit.peekFirst().visibleAtMs - now);
                    lock.wait(wait);
                }
                result = null;
            } else {
                result = core.step(now);
            }
        }
        rejections.forEach(Runnable::run);
        if (result == null) {
            return;
        }
        if (result.idle()) {
            Thread.sleep(1);
            return;
        }
        sleep(result.durationMs());
        synchronized (lock) {
            result.tokensByKey().keySet().forEach(k -> copy(k, listeners));
            result.finished().forEach(f -> {
                copy(f.request().key(), listeners);
                active.remove(f.request().key());
            });
        }
        deliver(result, listeners);
    }

    private void copy(String key, Map<String, Active> into) {
        Active a = active.get(key);
        if (a != null) {
            into.put(key, a);
        }
    }

    private void admitArrived(long now, List<Runnable> rejections) {
        for (Iterator<Pending> it = inTransit.iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (p.visibleAtMs > now) {
                break;
            }
            it.remove();
            try {
                core.add(p.request);
                active.put(p.request.key(), new Active(p.request, p.listener));
            } catch (IllegalArgumentException e) {
                rejections.add(() -> p.listener.onFailed(e.getMessage()));
            }
        }
    }

    private void deliver(StepResult result, Map<String, Active> listeners) {
        result.tokensByKey().forEach((key, count) -> {
            Active a = listeners.get(key);
            if (a == null) {
                return;
            }
            try {
                Long ttft = result.firstTokenTtftMs().get(key);
                if (ttft != null) {
                    a.listener.onFirstToken(ttft + networkDelayMs);
                }
                StringBuilder text = new StringBuilder();
                for (int i = 0; i < count; i++) {
                    text.append(SyntheticText.token(key, a.tokensSent++));
                }
                a.listener.onTokens(text.toString(), count);
            } catch (RuntimeException e) {
                LOG.warn("listener of {} failed on tokens", key, e);
            }
        });
        for (StepResult.Finished f : result.finished()) {
            Active a = listeners.get(f.request().key());
            if (a != null) {
                try {
                    a.listener.onFinished(f.finishReason(), f.usage(), f.ttftMs() + networkDelayMs);
                } catch (RuntimeException e) {
                    LOG.warn("listener of {} failed on finish", f.request().key(), e);
                }
            }
        }
    }

    private void failAll(String error) {
        List<Active> all;
        synchronized (lock) {
            all = new ArrayList<>(active.values());
            all.forEach(a -> core.abort(a.request.requestId()));
            active.clear();
        }
        all.forEach(a -> a.listener.onFailed("engine failure: " + error));
    }

    private static void sleep(double durationMs) throws InterruptedException {
        long nanos = (long) (durationMs * 1_000_000);
        long deadline = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    private record Pending(EngineRequest request, EngineListener listener, long visibleAtMs) {
    }

    private static final class Active {
        final EngineRequest request;
        final EngineListener listener;
        int tokensSent;

        Active(EngineRequest request, EngineListener listener) {
            this.request = request;
            this.listener = listener;
        }
    }
}
