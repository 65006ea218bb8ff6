package io.kvroute.router.routing;

/**
 * How many tokens finished requests generated: a moving average of their results' completion
 * tokens. A decoding sequence holds its batch slot for about that many engine steps, so a worker
 * with every slot taken frees one every (average answer length / the tokens it generates per
 * second); {@link KvAwarePolicy} estimates the wait for a slot from it. A request's max tokens only
 * bounds its answer (clients often ask for far more than it takes), so only results count.
 * Thread-safe: the results' consumer feeds it while decisions read it.
 */
public final class OutputLengths {
    /** Weight of each result: the average follows the last few hundred. */
    static final double SMOOTHING = 0.01;

    private double meanTokens = Double.NaN;

    /** A request finished having generated {@code completionTokens}; a result without any (it never ran) is ignored. */
    public synchronized void completed(long completionTokens) {
        if (completionTokens <= 0) {
            return;
        }
        meanTokens = Double.isNaN(meanTokens) ? completionTokens : meanTokens + SMOOTHING * (completionTokens - meanTokens);
    }

    /** The average answer length in tokens, or NaN before the first result. */
    public synchronized double meanTokens() {
        return meanTokens;
    }
}
