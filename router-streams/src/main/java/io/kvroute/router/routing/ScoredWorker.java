package io.kvroute.router.routing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A candidate as a policy scored it: the score, the leading prompt blocks the policy believes
 * cached there, and the components that explain the score (they go into the decision record).
 */
record ScoredWorker(WorkerSnapshot worker, double score, int matched, Map<String, Double> components) {
    /** Candidates listed in a decision. */
    static final int TOP_CANDIDATES = 3;

    /** Lowest score first, then the instance's tie-break. */
    static Comparator<ScoredWorker> lowestFirst(TieBreak tieBreak) {
        return Comparator.comparingDouble(ScoredWorker::score).thenComparing(ScoredWorker::workerId, tieBreak.workerIds());
    }

    /** Highest score first, then the instance's tie-break. */
    static Comparator<ScoredWorker> highestFirst(TieBreak tieBreak) {
        return Comparator.comparingDouble(ScoredWorker::score).reversed().thenComparing(ScoredWorker::workerId, tieBreak.workerIds());
    }

    /** Scores every candidate and orders them best first. */
    static List<ScoredWorker> rank(List<WorkerSnapshot> candidates, Function<WorkerSnapshot, ScoredWorker> scorer,
                                   Comparator<ScoredWorker> order) {
        List<ScoredWorker> ranked = new ArrayList<>(candidates.size());
        for (WorkerSnapshot worker : candidates) {
            ranked.add(scorer.apply(worker));
        }
        ranked.sort(order);
        return ranked;
    }

    String workerId() {
        return worker.workerId();
    }

    /**
     * The placement on the first of {@code ranked} (best first), on its least pending partition,
     * listing up to {@link #TOP_CANDIDATES} candidates with their components.
     */
    static Placement placement(RouterState state, List<ScoredWorker> ranked, long nowMs, String reason) {
        ScoredWorker best = ranked.get(0);
        int partition = state.leastPendingPartition(best.worker(), nowMs);
        List<ScoredCandidate> top = new ArrayList<>();
        for (ScoredWorker s : ranked.subList(0, Math.min(TOP_CANDIDATES, ranked.size()))) {
            int p = s == best ? partition : s.worker().ownedPartitions().get(0);
            top.add(new ScoredCandidate(s.workerId(), s.worker().region(), p, s.score(), s.components()));
        }
        return new Placement(best.workerId(), best.worker().region(), partition, best.score(), best.matched(), top, reason);
    }
}
