package io.kvroute.router.routing;

import java.util.Collections;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The router's engine speed per pool, learnt online from finished runs ({@link EngineSpeed}), each
 * pool starting from the configured prior profile or, without one, from nothing. A worker whose
 * telemetry names no pool is pooled by its region. Thread-safe: results are read on another thread than decisions.
 */
public final class EngineSpeeds {
    /** Pools a router keeps; past it, runs of new pools are not learnt from (pool names come from telemetry). */
    static final int MAX_POOLS = 1_024;

    private final TtftModel prior;
    private final double prefillTokensPerSecond;
    private final Map<String, EngineSpeed> pools = new ConcurrentHashMap<>();
    /** The pool name of each region's unnamed workers, built once: {@link #modelFor} runs for every candidate. */
    private static final Map<String, String> REGION_POOLS = new ConcurrentHashMap<>();
    private final EngineSpeed unpooled;
    private volatile Consumer<String> newPoolListener = pool -> { };

    /**
     * @param prior                  the profile each pool starts from; null to start from a prefill rate alone
     * @param prefillTokensPerSecond that rate ({@link RoutingSettings#prefillTokensPerSecond})
     */
    public EngineSpeeds(TtftModel prior, double prefillTokensPerSecond) {
        this.prior = prior;
        this.prefillTokensPerSecond = prefillTokensPerSecond;
        this.unpooled = create();
    }

    /** The model to estimate {@code worker}'s times with. */
    public TtftModel modelFor(WorkerSnapshot worker) {
        EngineSpeed speed = pools.get(poolOf(worker));
        return speed != null ? speed.current() : unpooled.current();
    }

    /** Learns from a finished run of {@code run.pool()}. */
    public void observe(FinishedRun run) {
        EngineSpeed speed = pools.get(run.pool());
        if (speed == null) {
            if (pools.size() >= MAX_POOLS) {
                return;
            }
            boolean[] created = {false};
            speed = pools.computeIfAbsent(run.pool(), p -> {
                created[0] = true;
                return create();
            });
            if (created[0]) {
                newPoolListener.accept(run.pool());
            }
        }
        speed.observe(run);
    }

    /** Tells {@code listener} each pool's name the first time a run of it is learnt from (metrics register it then). */
    public void onNewPool(Consumer<String> listener) {
        this.newPoolListener = listener;
    }

    /** The pools learnt so far, by name. */
    public Map<String, EngineSpeed> pools() {
        return Collections.unmodifiableMap(pools);
    }

    /** The pool a worker's runs are learnt under: the one its telemetry names, else its region's. */
    public static String poolOf(WorkerSnapshot worker) {
        return worker.pool().isEmpty() ? REGION_POOLS.computeIfAbsent(worker.region(), region -> "region:" + region) : worker.pool();
    }

    private EngineSpeed create() {
        return prior == null ? EngineSpeed.fromNothing(prefillTokensPerSecond) : EngineSpeed.from(prior);
    }
}
