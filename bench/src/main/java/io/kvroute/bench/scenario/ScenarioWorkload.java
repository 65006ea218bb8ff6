package io.kvroute.bench.scenario;

import io.kvroute.bench.trace.TraceRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Generated multi-tenant traffic for the scenarios: each tenant sends a Poisson stream of requests
 * made of one of its few long shared system prompts plus a short distinct query, as the llm-d
 * shared-prefix benchmark does. Deterministic for a seed.
 */
final class ScenarioWorkload {
    static final int BLOCK_TOKENS = 512;
    static final int PROMPTS_PER_TENANT = 4;
    private static final long PREFIX_ID_BASE = 5L << 40;
    private static final long QUERY_ID_BASE = 6L << 40;

    /**
     * One tenant's stream.
     *
     * @param ratePerSecond    its Poisson arrival rate; 0 = silent
     * @param interactiveShare share of its requests sent INTERACTIVE
     * @param pinnedRegions    regions its requests themselves allow (empty: any)
     */
    record TenantLoad(String tenant, double ratePerSecond, double interactiveShare, Set<String> pinnedRegions) {
        static TenantLoad of(String tenant, double ratePerSecond) {
            return new TenantLoad(tenant, ratePerSecond, 0.0, Set.of());
        }
    }

    /** Sizes of every request: shared prefix, query and mean output tokens. */
    record Shape(int prefixTokens, int queryTokens, int meanOutputTokens) {
        /** What every scenario sends: a 3k-token tenant prefix, a 768-token query, 150 output tokens on average. */
        static final Shape TENANT_QUERY = new Shape(3_072, 768, 150);
    }

    private ScenarioWorkload() {
    }

    /** Requests arriving in {@code [0, durationMs)}, in arrival order. */
    static List<TraceRequest> generate(List<TenantLoad> tenants, Shape shape, long durationMs, long seed) {
        return generate(tenants, shape, 0, durationMs, seed);
    }

    /**
     * Requests arriving in {@code [fromMs, toMs)}, in arrival order. A tenant's prompts depend only
     * on its position in {@code tenants}, so the same list over two windows gives the same tenants.
     */
    static List<TraceRequest> generate(List<TenantLoad> tenants, Shape shape, long fromMs, long toMs, long seed) {
        List<TraceRequest> all = new ArrayList<>();
        long nextQueryBlock = QUERY_ID_BASE + (fromMs << 16);
        for (int t = 0; t < tenants.size(); t++) {
            TenantLoad load = tenants.get(t);
            if (load.ratePerSecond() <= 0) {
                continue;
            }
            SplittableRandom random = new SplittableRandom(seed * 1_000_003L + t + fromMs);
            double clockMs = fromMs;
            while (true) {
                clockMs += -Math.log(1 - random.nextDouble()) * 1000.0 / load.ratePerSecond();
                if (clockMs >= toMs) {
                    break;
                }
                int prompt = random.nextInt(PROMPTS_PER_TENANT);
                int query = Math.max(1, (int) Math.round(shape.queryTokens() * (0.75 + 0.5 * random.nextDouble())));
                int input = shape.prefixTokens() + query;
                int blocks = (input + BLOCK_TOKENS - 1) / BLOCK_TOKENS;
                int shared = shape.prefixTokens() / BLOCK_TOKENS;
                long[] ids = new long[blocks];
                for (int b = 0; b < blocks; b++) {
                    ids[b] = b < shared ? PREFIX_ID_BASE + ((long) t * PROMPTS_PER_TENANT + prompt) * 4096 + b : nextQueryBlock++;
                }
                int output = Math.max(1, (int) Math.round(-Math.log(1 - random.nextDouble()) * shape.meanOutputTokens()));
                String priority = random.nextDouble() < load.interactiveShare() ? TraceRequest.INTERACTIVE : TraceRequest.BATCH;
                all.add(new TraceRequest((long) clockMs, input, Math.min(output, 8 * shape.meanOutputTokens()), ids, BLOCK_TOKENS,
                        load.tenant(), load.pinnedRegions(), priority));
            }
        }
        all.sort(Comparator.comparingLong(TraceRequest::arrivalMs));
        return all;
    }
}
