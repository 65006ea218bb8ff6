package io.kvroute.router.routing;

import java.util.function.IntConsumer;

/**
 * Chooses which eligible workers a decision evaluates when there are more than
 * {@link RoutingSettings#candidateSampleSize()}: first up to
 * {@link RoutingSettings#candidatePrefixHolders()} workers holding the request's leading blocks
 * (longest match first, by either prefix index), then a pseudo-random sample of the others.
 *
 * <p>Holders are found from the deepest held block backwards, so a decision visits the holders of
 * the rarest blocks first and stops once no shallower holder can beat those found; within one
 * block's holders the walk starts at an offset drawn from the request. The sample walks the
 * eligible list in a random affine order ({@code start + k * step mod n}, step coprime with n), so
 * it never repeats a worker and can be extended ({@link #drawMore}) until the whole list is seen.
 * Everything random derives from {@link RoutingSettings#randomSeed()} and the request id: the
 * same request over the same fleet and indices evaluates the same workers.
 *
 * <p>Not thread-safe: one sampler per {@link Router}.
 */
final class CandidateSampler {
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private final RoutingSettings settings;
    private int[] visitedStamp = new int[0];
    private int[] chosenStamp = new int[0];
    private int stamp;

    private FleetView.Eligible eligible;
    private long start;
    private long step;
    private int drawn;

    CandidateSampler(RoutingSettings settings) {
        this.settings = settings;
    }

    /**
     * Starts a sampled decision: passes the chosen prefix holders, then the first sample, to
     * {@code evaluate}; returns how many workers were passed.
     */
    int begin(RouteRequest request, FleetView fleet, FleetView.Eligible workers, PrefixLookup reported,
              PrefixLookup routed, IntConsumer evaluate) {
        if (++stamp == Integer.MAX_VALUE) {
            java.util.Arrays.fill(visitedStamp, 0);
            java.util.Arrays.fill(chosenStamp, 0);
            stamp = 1;
        }
        int ids = WorkerIds.count();
        if (visitedStamp.length < ids) {
            visitedStamp = java.util.Arrays.copyOf(visitedStamp, Math.max(ids, visitedStamp.length * 2));
            chosenStamp = java.util.Arrays.copyOf(chosenStamp, visitedStamp.length);
        }
        long seed = mix(settings.randomSeed() ^ (request.requestId().hashCode() * GOLDEN_GAMMA));
        int holders = chooseHolders(request, fleet, reported, routed, seed, evaluate);
        eligible = workers;
        int n = workers.size();
        long second = mix(seed + GOLDEN_GAMMA);
        start = Math.floorMod(seed, (long) n);
        step = 1 + Math.floorMod(second, (long) Math.max(1, n - 1));
        while (gcd(step, n) != 1) {
            step = step % n + 1;
        }
        drawn = 0;
        return holders + drawMore(settings.candidateSampleSize(), evaluate);
    }

    /** Passes up to {@code count} more not yet chosen eligible workers; returns how many. */
    int drawMore(int count, IntConsumer evaluate) {
        int n = eligible.size();
        int passed = 0;
        while (passed < count && drawn < n) {
            int worker = eligible.get((int) ((start + drawn * step) % n));
            drawn++;
            if (worker < chosenStamp.length && chosenStamp[worker] == stamp) {
                continue;
            }
            choose(worker);
            evaluate.accept(worker);
            passed++;
        }
        return passed;
    }

    boolean exhausted() {
        return drawn >= eligible.size();
    }

    private int chooseHolders(RouteRequest request, FleetView fleet, PrefixLookup reported, PrefixLookup routed,
                              long seed, IntConsumer evaluate) {
        int max = settings.candidatePrefixHolders();
        if (max == 0) {
            return 0;
        }
        int[] best = new int[max];
        int[] bestMatch = new int[max];
        int count = 0;
        int minAt = 0;
        int depth = Math.max(reported.depth(), routed.depth());
        PrefixLookup[] lookups = {reported, routed};
        outer:
        for (int block = depth - 1; block >= 0; block--) {
            for (PrefixLookup lookup : lookups) {
                if (block >= lookup.depth()) {
                    continue;
                }
                int n = lookup.holderCount(block);
                int offset = (int) Math.floorMod(seed + block, (long) n);
                for (int j = 0; j < n; j++) {
                    if (count == max && bestMatch[minAt] >= block + 1) {
                        break outer;
                    }
                    int worker = lookup.holder(block, (offset + j) % n);
                    if (worker >= visitedStamp.length || visitedStamp[worker] == stamp) {
                        continue;
                    }
                    visitedStamp[worker] = stamp;
                    WorkerSnapshot snapshot = fleet.get(worker);
                    if (snapshot == null || !admits(request, snapshot)) {
                        continue;
                    }
                    int match = Math.max(reported.match(snapshot.workerId()), routed.match(snapshot.workerId()));
                    if (count < max) {
                        best[count] = worker;
                        bestMatch[count++] = match;
                    } else if (match > bestMatch[minAt]) {
                        best[minAt] = worker;
                        bestMatch[minAt] = match;
                    } else {
                        continue;
                    }
                    minAt = 0;
                    for (int i = 1; i < count; i++) {
                        if (bestMatch[i] < bestMatch[minAt]) {
                            minAt = i;
                        }
                    }
                }
            }
        }
        for (int i = 0; i < count; i++) {
            choose(best[i]);
            evaluate.accept(best[i]);
        }
        return count;
    }

    private boolean admits(RouteRequest request, WorkerSnapshot worker) {
        return worker.models().contains(request.model()) && settings.regionKnown(worker.region())
                && request.allowsRegion(worker.region());
    }

    private void choose(int worker) {
        if (worker < chosenStamp.length) {
            chosenStamp[worker] = stamp;
        }
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
