package io.kvroute.bench.trace;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The multi-tenant shared-prefix workload of llm-d's prefix-routing benchmark, rebuilt as a
 * generated trace: {@code tenants} tenants, each with a long shared system prefix, sending short
 * distinct queries as one Poisson stream at {@code ratePerSecond}. Deterministic for a seed.
 */
public final class TenantWorkload {
    public static final int BLOCK_TOKENS = 512;
    private static final long PREFIX_ID_BASE = 2L << 40;
    private static final long QUERY_ID_BASE = 3L << 40;

    /** Defaults from the llm-d benchmark: 150 tenants, 6k-token prefix, 1.2k-token queries. */
    public record Spec(int tenants, int prefixTokens, int queryTokens, int meanOutputTokens, double ratePerSecond, int requests, long seed) {
        public static Spec llmdDefaults(int requests, double ratePerSecond, long seed) {
            return new Spec(150, 6000, 1200, 200, ratePerSecond, requests, seed);
        }

        public Spec {
            if (tenants < 1 || prefixTokens < 0 || queryTokens < 1 || meanOutputTokens < 1 || !(ratePerSecond > 0) || requests < 0) {
                throw new IllegalArgumentException("invalid tenant workload " + this);
            }
        }
    }

    private TenantWorkload() {
    }

    public static List<TraceRequest> generate(Spec spec) {
        return generate(spec, TenantResidency.NONE);
    }

    /** As {@link #generate(Spec)}, each tenant's requests allowed only in the regions {@code residency} gives it. */
    public static List<TraceRequest> generate(Spec spec, TenantResidency residency) {
        SplittableRandom random = new SplittableRandom(spec.seed());
        List<TraceRequest> requests = new ArrayList<>(spec.requests());
        int sharedBlocks = spec.prefixTokens() / BLOCK_TOKENS;
        long nextQueryBlock = QUERY_ID_BASE;
        double clockMs = 0;
        for (int i = 0; i < spec.requests(); i++) {
            clockMs += -Math.log(1 - random.nextDouble()) * 1000.0 / spec.ratePerSecond();
            int tenant = random.nextInt(spec.tenants());
            int query = Math.max(1, (int) Math.round(spec.queryTokens() * (0.75 + 0.5 * random.nextDouble())));
            int input = spec.prefixTokens() + query;
            int blocks = (input + BLOCK_TOKENS - 1) / BLOCK_TOKENS;
            long[] ids = new long[blocks];
            for (int b = 0; b < blocks; b++) {
                ids[b] = b < sharedBlocks ? PREFIX_ID_BASE + (long) tenant * 4096 + b : nextQueryBlock++;
            }
            int output = Math.max(1, (int) Math.round(-Math.log(1 - random.nextDouble()) * spec.meanOutputTokens()));
            requests.add(new TraceRequest((long) clockMs, input, Math.min(output, 8 * spec.meanOutputTokens()), ids, BLOCK_TOKENS,
                    "tenant-" + tenant, residency.regionsOf(tenant), null));
        }
        return requests;
    }
}
