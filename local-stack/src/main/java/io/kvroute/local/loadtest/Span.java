package io.kvroute.local.loadtest;

/**
 * Records counted between a first and a last observation (ms on one clock): the rate is the
 * records after the first over the time from the first to the last, so a run that saw its
 * first record at t0 and its n-th at t1 moved {@code (n - 1) / (t1 - t0)} records per second.
 */
public record Span(long count, long firstMs, long lastMs) {
    public static final Span EMPTY = new Span(0, 0, 0);

    public Span {
        if (count < 0 || (count > 0 && lastMs < firstMs)) {
            throw new IllegalArgumentException("a span needs count >= 0 and last >= first, was " + count + " from " + firstMs + " to " + lastMs);
        }
    }

    /** This span with one more record seen at {@code atMs} (records may come in any order). */
    public Span plus(long atMs) {
        return count == 0 ? new Span(1, atMs, atMs) : new Span(count + 1, Math.min(firstMs, atMs), Math.max(lastMs, atMs));
    }

    public long durationMs() {
        return count == 0 ? 0 : lastMs - firstMs;
    }

    /** Records per second from the first to the last; 0 when fewer than two records or no time passed. */
    public double perSecond() {
        long ms = durationMs();
        return count < 2 || ms <= 0 ? 0 : (count - 1) * 1000.0 / ms;
    }
}
