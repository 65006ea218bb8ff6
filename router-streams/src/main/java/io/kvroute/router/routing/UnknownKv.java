package io.kvroute.router.routing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Prices the candidates whose worker does not know its KV use ({@link WorkerSnapshot#kvReported()}
 * false: a llama.cpp server whose {@code /metrics} exports no KV use and whose {@code /slots} page
 * is off) as using what the median candidate that knows its own uses: its share of the cache and its
 * tokens in use. A worker that reports 0 of 0 would otherwise look empty to every policy that reads
 * KV use (lowest KV first, the GIE picker's KV score, Dynamo's decode blocks, kvroute's KV penalty)
 * and draw the requests of the fleet; not knowing is no reason to prefer it, nor to shun it. When no
 * candidate knows its KV use, all are alike and are left as they are.
 */
final class UnknownKv {
    private UnknownKv() {
    }

    /** The candidates, each without a KV report given the median report of the others; the same list when all report. */
    static List<WorkerSnapshot> neutral(List<WorkerSnapshot> candidates) {
        int unknown = 0;
        for (WorkerSnapshot worker : candidates) {
            if (!worker.kvReported()) {
                unknown++;
            }
        }
        if (unknown == 0 || unknown == candidates.size()) {
            return candidates;
        }
        double[] usages = new double[candidates.size() - unknown];
        double[] tokensUsed = new double[usages.length];
        int known = 0;
        for (WorkerSnapshot worker : candidates) {
            if (worker.kvReported()) {
                usages[known] = worker.kvUsage();
                tokensUsed[known] = (double) worker.kvBlocksUsed() * worker.kvBlockTokens();
                known++;
            }
        }
        double usage = median(usages);
        double tokens = median(tokensUsed);
        List<WorkerSnapshot> priced = new ArrayList<>(candidates.size());
        for (WorkerSnapshot worker : candidates) {
            priced.add(worker.kvReported() ? worker : worker.withKvUse(Math.round(tokens / worker.kvBlockTokens()), usage));
        }
        return priced;
    }

    private static double median(double[] values) {
        Arrays.sort(values);
        int n = values.length;
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
    }
}
