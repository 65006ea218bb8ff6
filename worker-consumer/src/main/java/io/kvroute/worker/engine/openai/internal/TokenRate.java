package io.kvroute.worker.engine.openai.internal;

/** Output tokens per second over the last {@value #WINDOW_SECONDS} whole seconds, from one-second buckets. */
public final class TokenRate {
    public static final int WINDOW_SECONDS = 10;
    private final long[] counts = new long[WINDOW_SECONDS];
    private final long[] seconds = new long[WINDOW_SECONDS];

    public synchronized void add(long nowMs, int tokens) {
        long second = Math.floorDiv(nowMs, 1000);
        int slot = (int) Math.floorMod(second, WINDOW_SECONDS);
        if (seconds[slot] != second) {
            seconds[slot] = second;
            counts[slot] = 0;
        }
        counts[slot] += tokens;
    }

    public synchronized double perSecond(long nowMs) {
        long second = Math.floorDiv(nowMs, 1000);
        long sum = 0;
        for (int i = 0; i < WINDOW_SECONDS; i++) {
            if (second - seconds[i] < WINDOW_SECONDS && seconds[i] <= second) {
                sum += counts[i];
            }
        }
        return (double) sum / WINDOW_SECONDS;
    }
}
