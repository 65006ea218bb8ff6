package io.kvroute.ingress.client;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * Tokens and spend per tenant, model and region, from results (one {@link Completion} per request, as the response
 * rule picks it), in the manner of LiteLLM's spend tracking. A request is priced at its region's price per million
 * tokens for its prompt and completion tokens; cached prompt tokens are shown, not discounted (a region profile has
 * one price). Every result counts, whatever its status: a cancelled or failed run used what it reports.
 */
public final class UsageReport {
    /** One row: a tenant's use of a model in a region. */
    public record Row(String tenant, String model, String region, long requests, long promptTokens, long cachedTokens,
                      long completionTokens, double cost) {
        Row plus(Completion c, double pricePerMillion) {
            TokenUsage u = c.usage();
            return plus(1, u.promptTokens(), u.cachedTokens(), u.completionTokens(),
                    (u.promptTokens() + u.completionTokens()) * pricePerMillion / 1e6);
        }

        Row plus(long moreRequests, long prompt, long cached, long completion, double moreCost) {
            return new Row(tenant, model, region, requests + moreRequests, promptTokens + prompt, cachedTokens + cached,
                    completionTokens + completion, cost + moreCost);
        }
    }

    /** What a result without a tenant, model or region is counted under. */
    public static final String UNKNOWN = "(unknown)";

    private final Map<List<String>, Row> rows = new TreeMap<>(Comparator.comparing((List<String> k) -> k.get(0))
            .thenComparing(k -> k.get(1)).thenComparing(k -> k.get(2)));

    /**
     * The usage of {@code results} completed at or after {@code sinceMs}, of {@code tenant} only when not null, priced by
     * {@code pricePerMillion} of each region.
     */
    public static UsageReport of(List<Completion> results, long sinceMs, String tenant, ToDoubleFunction<String> pricePerMillion) {
        UsageReport report = new UsageReport();
        for (Completion c : results) {
            String t = orUnknown(c.tenant());
            if (c.completedAtMs() < sinceMs || tenant != null && !tenant.equals(t)) {
                continue;
            }
            String region = orUnknown(c.region());
            List<String> key = List.of(t, orUnknown(c.model()), region);
            Row row = report.rows.getOrDefault(key, new Row(key.get(0), key.get(1), key.get(2), 0, 0, 0, 0, 0));
            report.rows.put(key, row.plus(c, c.region() == null ? 0 : pricePerMillion.applyAsDouble(region)));
        }
        return report;
    }

    private static String orUnknown(String s) {
        return s == null || s.isEmpty() ? UNKNOWN : s;
    }

    /** The rows by tenant, model and region. */
    public List<Row> rows() {
        return List.copyOf(rows.values());
    }

    /** The sum of every row, under tenant, model and region "all". */
    public Row total() {
        Row total = new Row("all", "all", "all", 0, 0, 0, 0, 0);
        for (Row r : rows.values()) {
            total = total.plus(r.requests(), r.promptTokens(), r.cachedTokens(), r.completionTokens(), r.cost());
        }
        return total;
    }
}
