package io.kvroute.router.routing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * Baseline "power of two choices" (SGLang's {@code power_of_two}, Ray Serve's default): draw two
 * distinct candidate workers at random (workers, not GPU slots, so a worker owning several
 * partitions is not drawn more often; the request then goes to its least pending partition) and take the less loaded, load being running + waiting requests
 * plus those the router placed since the worker's telemetry (both anchors count their own
 * in-flight requests). Ties go to the smaller worker id. With one candidate, that one.
 *
 * <p>Deterministic for a seed: the draw of the n-th placement comes from a
 * {@link SplittableRandom} seeded with {@link RoutingSettings#randomSeed()} and n, and n advances
 * only in {@link #onPlaced}, so a retried decision draws the same pair.
 */
public final class PowerOfTwoPolicy implements RoutingPolicy {
    public static final String NAME = "power-of-two";
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private final RouterState state;
    private final Comparator<ScoredWorker> order;
    private final long seed;
    private long placements;

    public PowerOfTwoPolicy(RouterState state) {
        this.state = state;
        this.order = ScoredWorker.lowestFirst(state.tieBreak());
        this.seed = state.settings().randomSeed();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Optional<Placement> place(RouteRequest request, List<WorkerSnapshot> candidates, long nowMs) {
        int n = candidates.size();
        if (n == 0) {
            return Optional.empty();
        }
        SplittableRandom random = new SplittableRandom(seed + placements * GOLDEN_GAMMA);
        int first = random.nextInt(n);
        List<WorkerSnapshot> drawn = new ArrayList<>(2);
        drawn.add(candidates.get(first));
        if (n > 1) {
            int second = random.nextInt(n - 1);
            drawn.add(candidates.get(second >= first ? second + 1 : second));
        }
        List<ScoredWorker> ranked = new ArrayList<>(2);
        for (WorkerSnapshot worker : drawn) {
            long load = state.inFlight(worker, nowMs);
            Map<String, Double> components = new LinkedHashMap<>();
            components.put("load", (double) load);
            components.put("pending_requests", (double) state.pending(worker, nowMs).requests());
            ranked.add(new ScoredWorker(worker, load, state.matchedBlocks(worker, request), components));
        }
        ranked.sort(order);
        String reason = ranked.size() == 1 ? "only candidate"
                : String.format("less loaded of two drawn (%.0f vs %.0f)", ranked.get(0).score(), ranked.get(1).score());
        return Optional.of(ScoredWorker.placement(state, ranked, nowMs, reason));
    }

    @Override
    public void onPlaced(RouteRequest request, Placement placement, long nowMs) {
        placements++;
    }
}
