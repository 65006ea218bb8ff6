package io.kvroute.router.routing;

/**
 * One pool's engine speed as a router learns it online from finished runs: the {@link TtftModel}'s
 * coefficients, fitted by two {@link RobustRegression}s.
 *
 * <pre>
 * prefill: ttft - steps * (t0 + decode work per step)  =  w + a * U + k * A
 *          U = the run's uncached prompt tokens + the owed tokens ahead of it not cached (at the worker's hit rate)
 *          A = the run's attention pairs: uncached * (cached + uncached / 2);  steps = ceil(U / step tokens)
 *          w = the wait for the step in progress when it arrived (not part of the model: the policy prices that wait)
 * decode:  decode time / (completion tokens - 1)  =  t0' + a' * P + b * D + v * C
 *          D = decoding sequences, C = their context tokens (the worker's telemetry), P = the other runs' prompt
 *          tokens prefilled meanwhile, not cached (at the worker's hit rate), per decode step
 * </pre>
 *
 * Without P, decode steps that carry long prompts' chunks (the Azure code trace: 8k-token prompts, short answers)
 * read as an expensive context: the context coefficient came out 20 times the engine's, and with it every queue.
 *
 * The step overhead t0 comes from the decode fit, where steps without prefill tell it apart: in the prefill fit
 * it is one with the wait w for the step in progress (a prompt mostly takes one step), and there it came out at 100 ms
 * for an engine's 6.5, pricing every queued step 15 times too high.
 *
 * <p>Features are scaled (thousands of tokens, millions of pairs, hundreds of sequences) so that the
 * priors' spreads are of one order. A run whose time includes waits the features cannot see (a
 * full batch, a preemption) is an outlier the regressions down-weight. Thread-safe: learnt from on
 * one thread, read on others.
 */
public final class EngineSpeed {
    /** Observations each fit remembers (forgetting 1 - 1/this): a few seconds of a busy pool, so a slowing GPU shows soon. */
    static final int MEMORY_RUNS = 500;
    /** Step size when no prior names it: vLLM's default max_num_batched_tokens on H100-class GPUs. */
    static final int DEFAULT_STEP_TOKENS = 8_192;
    /** Host-to-GPU copy time per token when no prior names it: 128 KiB of KV per token at an effective 25 GB/s. */
    static final double DEFAULT_HOST_MS_PER_TOKEN = 128 * 1024 * 1000.0 / 25e9;
    /**
     * Prior spreads when starting from nothing, in the scaled units: wide enough that a few runs decide (a step of
     * ~100 ms, ~1 s per thousand tokens, per million pairs, per hundred sequences, per hundred thousand context tokens).
     */
    private static final double[] NOTHING_PREFILL_SD = {1_000.0, 1_000.0, 1_000.0};
    private static final double[] NOTHING_DECODE_SD = {100.0, 1_000.0, 100.0, 100.0};
    /** Prior spread around a named profile: half of each coefficient (plus a floor), as a profile is a guess for this fleet. */
    private static final double PROFILE_RELATIVE_SD = 0.5;

    private final RobustRegression prefill;
    private final RobustRegression decode;
    private final int stepTokens;
    private final double hostMsPerToken;
    private volatile TtftModel current;

    private EngineSpeed(RobustRegression prefill, RobustRegression decode, int stepTokens, double hostMsPerToken) {
        this.prefill = prefill;
        this.decode = decode;
        this.stepTokens = stepTokens;
        this.hostMsPerToken = hostMsPerToken;
        this.current = model();
    }

    /**
     * Starting from no engine profile: a prefill rate alone ({@code router.prefill.tokens.per.second}, the rate the
     * router assumes of any worker), no step or attention cost and no decode cost, all of it loosely held so that
     * the first runs decide. With every cost 0 instead, a cold start's first burst scored every GPU alike and went to
     * one of them.
     */
    public static EngineSpeed fromNothing(double prefillTokensPerSecond) {
        double forgetting = 1.0 - 1.0 / MEMORY_RUNS;
        double[] prefill = {0.0, 1e3 * 1e3 / prefillTokensPerSecond, 0.0};
        return new EngineSpeed(new RobustRegression(prefill, NOTHING_PREFILL_SD, forgetting),
                new RobustRegression(new double[] {0.0, prefill[1], 0.0, 0.0}, NOTHING_DECODE_SD, forgetting), DEFAULT_STEP_TOKENS,
                DEFAULT_HOST_MS_PER_TOKEN);
    }

    /** Starting from a configured profile, which runs correct. */
    public static EngineSpeed from(TtftModel prior) {
        double forgetting = 1.0 - 1.0 / MEMORY_RUNS;
        double[] p = {prior.t0Ms() / 2, prior.aMsPerToken() * 1e3, prior.kMsPerTokenPair() * 1e6};
        double[] d = {prior.t0Ms(), prior.aMsPerToken() * 1e3, prior.bMsPerSequence() * 1e2, prior.vMsPerContextToken() * 1e5};
        return new EngineSpeed(new RobustRegression(p, spread(p), forgetting), new RobustRegression(d, spread(d), forgetting),
                prior.stepTokens(), prior.hMsPerHostToken());
    }

    private static double[] spread(double[] prior) {
        double[] sd = new double[prior.length];
        for (int i = 0; i < sd.length; i++) {
            sd[i] = PROFILE_RELATIVE_SD * prior[i] + 0.1;
        }
        return sd;
    }

    /** Learns from one finished run of this pool. */
    public synchronized void observe(FinishedRun run) {
        int uncached = Math.max(0, run.promptTokens() - run.cachedTokens());
        // the step overhead and the decode work each step carries, from the decode fit, where decode-only steps tell them
        double stepMs = current.stepMs(current.decodeMsPerStep(run.decodingSequences(), run.contextTokens()));
        if (run.ttftMs() >= 0) {
            double ahead = run.queuedAheadTokens() > 0 ? run.queuedAheadTokens() * (1.0 - clamp01(run.prefixHitRate())) : 0.0;
            double tokens = uncached + ahead;
            double steps = Math.max(1, Math.ceil(tokens / stepTokens));
            double attention = (double) uncached * (run.cachedTokens() + uncached / 2.0);
            prefill.observe(new double[] {1.0, tokens / 1e3, attention / 1e6}, run.ttftMs() - steps * stepMs);
        }
        if (run.decodeMs() >= 0 && run.completionTokens() > 1) {
            double steps = run.completionTokens() - 1;
            double prefilled = Math.max(0, run.promptTokensDuringDecode()) * (1.0 - clamp01(run.prefixHitRate()));
            decode.observe(new double[] {1.0, prefilled / steps / 1e3, run.decodingSequences() / 1e2, run.contextTokens() / 1e5},
                    run.decodeMs() / steps);
        }
        current = model();
    }

    /** The model as learnt so far. */
    public TtftModel current() {
        return current;
    }

    /** Runs learnt from, prefill fits. */
    public synchronized long observations() {
        return prefill.observations();
    }

    /** How far off the prefill fit's TTFT predictions run, on average (ms). */
    public synchronized double meanAbsErrorMs() {
        return prefill.meanAbsResidual();
    }

    private TtftModel model() {
        double[] p = prefill.coefficients();
        double[] d = decode.coefficients();
        return new TtftModel(d[0], p[1] / 1e3, p[2] / 1e6, d[2] / 1e2, d[3] / 1e5, stepTokens, hostMsPerToken);
    }

    private static double clamp01(double v) {
        return Double.isFinite(v) ? Math.max(0.0, Math.min(1.0, v)) : 0.0;
    }
}
