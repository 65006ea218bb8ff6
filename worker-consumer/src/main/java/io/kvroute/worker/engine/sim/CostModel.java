package io.kvroute.worker.engine.sim;

/**
 * Time of one engine step, from ENGINE_MODEL.md's suggested step-time model:
 * {@code step_ms = T0 + a·P + k·Σ n_i·(c_i + n_i/2) + b·D + v·C}, divided by a speed factor.
 * P = uncached prefill tokens in the step, n_i / c_i = new / already-computed tokens of prefill
 * request i, D = decode sequences, C = their total context tokens. The defaults are Llama-3.1-8B
 * on one H100 (inference-sim's fit of vLLM 0.8.4 for T0, a, b; physics for k and v): an idle
 * 1k-token prefill step takes about 27 ms, a decode step at batch 1 about 6.6 ms.
 */
public record CostModel(double stepOverheadMs, double perPrefillTokenMs, double attentionMsPerTokenSquared,
                        double perDecodeSequenceMs, double perDecodeContextTokenMs, double speed) {
    public static final double LLAMA_8B_H100_T0_MS = 6.5;
    public static final double LLAMA_8B_H100_PREFILL_TOKEN_MS = 0.020;
    public static final double LLAMA_8B_H100_ATTENTION_MS = 1.3e-6;
    public static final double LLAMA_8B_H100_DECODE_SEQUENCE_MS = 0.0044;
    public static final double LLAMA_8B_H100_DECODE_CONTEXT_TOKEN_MS = 7.6e-5;

    public CostModel {
        if (!(speed > 0)) {
            throw new IllegalArgumentException("speed must be positive, was " + speed);
        }
    }

    public static CostModel llama8bH100() {
        return llama8bH100(1.0);
    }

    /** The 8B/H100 model run {@code speed} times faster (2.0 = half the step time). */
    public static CostModel llama8bH100(double speed) {
        return new CostModel(LLAMA_8B_H100_T0_MS, LLAMA_8B_H100_PREFILL_TOKEN_MS, LLAMA_8B_H100_ATTENTION_MS,
                LLAMA_8B_H100_DECODE_SEQUENCE_MS, LLAMA_8B_H100_DECODE_CONTEXT_TOKEN_MS, speed);
    }

    /** The attention work {@code n·(c + n/2)} of prefilling {@code newTokens} after {@code computedTokens}. */
    public static double prefillAttention(long newTokens, long computedTokens) {
        return newTokens * (computedTokens + newTokens / 2.0);
    }

    /**
     * @param prefillTokens        P, uncached tokens prefilled in the step
     * @param prefillAttention     Σ n_i·(c_i + n_i/2) over the step's prefill requests
     * @param decodeSequences      D
     * @param decodeContextTokens  C
     */
    public double stepMs(long prefillTokens, double prefillAttention, int decodeSequences, long decodeContextTokens) {
        double ms = stepOverheadMs
                + perPrefillTokenMs * prefillTokens
                + attentionMsPerTokenSquared * prefillAttention
                + perDecodeSequenceMs * decodeSequences
                + perDecodeContextTokenMs * decodeContextTokens;
        return ms / speed;
    }

    /** Step time of prefilling one whole {@code promptTokens} prompt (with {@code cachedTokens} cached) alone. */
    public double idlePrefillMs(int promptTokens, int cachedTokens) {
        int uncached = promptTokens - cachedTokens;
        return stepMs(uncached, prefillAttention(uncached, cachedTokens), 0, 0);
    }

    /** Step time of decoding {@code sequences} sequences of {@code contextTokens} each. */
    public double decodeMs(int sequences, long contextTokens) {
        return stepMs(0, 0, sequences, sequences * contextTokens);
    }
}
