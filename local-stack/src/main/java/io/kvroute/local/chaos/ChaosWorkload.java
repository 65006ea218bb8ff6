package io.kvroute.local.chaos;

import io.kvroute.bench.trace.SyntheticPrompt;
import io.kvroute.bench.trace.TenantWorkload;
import io.kvroute.bench.trace.TraceRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The records a chaos run sends: a seeded multi-tenant shared-prefix workload (so routing has
 * cache locality to keep through the faults) with a fraction replaced by poison records.
 */
public final class ChaosWorkload {
    /** One record to send {@code atMs} after the start: a request, or poison when {@code poison} is set. */
    public record Item(long atMs, String requestId, String tenant, int maxTokens, TraceRequest shape, PoisonKind poison) {
        public boolean isPoison() {
            return poison != null;
        }

        public String prompt() {
            return SyntheticPrompt.forRequest(shape);
        }
    }

    /** 12 tenants, a 1.5k-token shared prefix, 256-token queries, 48 output tokens on average. */
    static final int TENANTS = 12;
    static final int PREFIX_TOKENS = 1536;
    static final int QUERY_TOKENS = 256;
    static final int MEAN_OUTPUT_TOKENS = 48;

    private ChaosWorkload() {
    }

    public static List<Item> generate(int requests, double ratePerSecond, double poisonFraction, long seed) {
        if (!(poisonFraction >= 0 && poisonFraction <= 1)) {
            throw new IllegalArgumentException("poison fraction must be in [0, 1], was " + poisonFraction);
        }
        List<TraceRequest> shapes = TenantWorkload.generate(new TenantWorkload.Spec(TENANTS, PREFIX_TOKENS, QUERY_TOKENS,
                MEAN_OUTPUT_TOKENS, ratePerSecond, requests, seed));
        SplittableRandom random = new SplittableRandom(seed ^ 0x5DEECE66DL);
        int poisonCount = (int) Math.round(requests * poisonFraction);
        boolean[] poisoned = new boolean[requests];
        for (int placed = 0; placed < poisonCount; ) {
            int index = random.nextInt(requests);
            if (!poisoned[index]) {
                poisoned[index] = true;
                placed++;
            }
        }
        PoisonKind[] kinds = PoisonKind.values();
        List<Item> items = new ArrayList<>(requests);
        int nextPoison = 0;
        for (int i = 0; i < requests; i++) {
            TraceRequest shape = shapes.get(i);
            PoisonKind poison = poisoned[i] ? kinds[nextPoison++ % kinds.length] : null;
            items.add(new Item(shape.arrivalMs(), String.format("chaos-%06d", i), shape.tenant(), shape.outputTokens(), shape, poison));
        }
        return items;
    }
}
