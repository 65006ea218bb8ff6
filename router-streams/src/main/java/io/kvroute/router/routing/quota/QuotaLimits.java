package io.kvroute.router.routing.quota;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One tenant's quota.
 *
 * @param requestsPerMinute requests admitted per minute; {@link #UNLIMITED} for no limit
 * @param tokensPerMinute   tokens (prompt + output) admitted per minute; {@link #UNLIMITED} for no limit
 * @param overQuota         what happens to a request over quota
 */
public record QuotaLimits(long requestsPerMinute, long tokensPerMinute, OverQuota overQuota) {
    public static final long UNLIMITED = Long.MAX_VALUE;
    public static final QuotaLimits NONE = new QuotaLimits(UNLIMITED, UNLIMITED, OverQuota.WAIT);
    /** The notation {@link #parseMap} reads ({@code -} = no limit), e.g. for a {@code router.tenant.quotas} setting. */
    public static final String EXAMPLE = "acme=600/1000000,bulk=-/5000000/reject";

    public QuotaLimits {
        Objects.requireNonNull(overQuota, "overQuota");
        if (requestsPerMinute < 1 || tokensPerMinute < 1) {
            throw new IllegalArgumentException("quota limits must be at least 1 per minute, were "
                    + requestsPerMinute + " requests and " + tokensPerMinute + " tokens");
        }
    }

    public boolean unlimited() {
        return requestsPerMinute == UNLIMITED && tokensPerMinute == UNLIMITED;
    }

    /**
     * Parses {@code tenant=requestsPerMinute/tokensPerMinute[/wait|reject]}, comma separated (see
     * {@link #EXAMPLE}); a malformed part fails naming it.
     */
    public static Map<String, QuotaLimits> parseMap(String spec) {
        Map<String, QuotaLimits> quotas = new TreeMap<>();
        if (spec == null || spec.isBlank()) {
            return quotas;
        }
        for (String part : spec.split(",")) {
            String p = part.trim();
            int eq = p.indexOf('=');
            String[] fields = eq < 0 ? new String[0] : p.substring(eq + 1).split("/");
            if (eq <= 0 || fields.length < 2 || fields.length > 3 || quotas.containsKey(p.substring(0, eq))) {
                throw new IllegalArgumentException("tenant quota '" + p + "' is not tenant=rpm/tpm[/wait|reject], or names its tenant twice (e.g. "
                        + EXAMPLE + ")");
            }
            try {
                OverQuota action = fields.length == 3 ? OverQuota.valueOf(fields[2].trim().toUpperCase(Locale.ROOT)) : OverQuota.WAIT;
                quotas.put(p.substring(0, eq).trim(), new QuotaLimits(limit(fields[0]), limit(fields[1]), action));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("tenant quota '" + p + "': " + e.getMessage() + " (e.g. " + EXAMPLE + ")", e);
            }
        }
        return quotas;
    }

    private static long limit(String field) {
        String f = field.trim();
        return f.equals("-") ? UNLIMITED : Long.parseLong(f);
    }
}
