package io.kvroute.worker.engine.sim;

/**
 * Time of one engine step, from ENGINE_MODEL.md's suggested step-time model plus a host-tier load
 * term: {@code step_ms = T0 + a·P + k·Σ n_i·(c_i + n_i/2) + b·D + v·C + h·L}, divided by a speed
 * factor. P = uncached prefill tokens in the step, n_i / c_i = new / already-computed tokens of
 * prefill request i (c_i includes cached and loaded prefix tokens), D = decode sequences, C = their
 * total context tokens, L = prefix tokens loaded from the host KV tier in the step. The load is
 * charged serially: the step's forward pass waits for it (vLLM's connector loads before the
 * request is scheduled; layer-wise overlap as in LMCache would hide part of it). The defaults are
 * Llama-3.1-8B on one H100 (inference-sim's fit of vLLM 0.8.4 for T0, a, b; physics for k, v and
 * h): an idle 1k-token prefill step takes about 27 ms, a decode step at batch 1 about 6.6 ms,
 * loading 1k prefix tokens from host memory about 5.2 ms.
 *
 * @param hostLoadMsPerToken h, ms to copy one token's KV from host DRAM to the GPU
 */
public record CostModel(double stepOverheadMs, double perPrefillTokenMs, double attentionMsPerTokenSquared,
                        double perDecodeSequenceMs, double perDecodeContextTokenMs, double speed,
                        double hostLoadMsPerToken) {
    public static final double LLAMA_8B_H100_T0_MS = 6.5;
    public static final double LLAMA_8B_H100_PREFILL_TOKEN_MS = 0.020;
    public static final double LLAMA_8B_H100_ATTENTION_MS = 1.3e-6;
    public static final double LLAMA_8B_H100_DECODE_SEQUENCE_MS = 0.0044;
    public static final double LLAMA_8B_H100_DECODE_CONTEXT_TOKEN_MS = 7.6e-5;
    /** Llama-3.1-8B KV in BF16: 32 layers × 8 KV heads × 128 dims × 2 (K and V) × 2 bytes = 128 KiB per token. */
    public static final long LLAMA_8B_KV_BYTES_PER_TOKEN = 32L * 8 * 128 * 2 * 2;
    /**
     * Effective host-to-device bandwidth of PCIe 5.0 x16 in practice, bytes per second: 64 GB/s
     * raw per direction, about 25 GB/s for paged KV copies (scattered blocks, pinned memory)
     * [derived; vLLM/LMCache report 20–30 GB/s].
     */
    public static final double PCIE5_X16_EFFECTIVE_BYTES_PER_SECOND = 25e9;
    /**
     * h for Llama-3.1-8B over PCIe 5.0 x16: 131,072 bytes / 25e9 bytes/s = 5.24 µs ≈ 0.0052 ms per
     * token [derived], about a quarter of recomputing it (a = 0.020 ms): 32k tokens load in ~170 ms
     * against ~1.4 s of prefill.
     */
    public static final double LLAMA_8B_PCIE5_HOST_LOAD_TOKEN_MS =
            hostLoadMsPerToken(LLAMA_8B_KV_BYTES_PER_TOKEN, PCIE5_X16_EFFECTIVE_BYTES_PER_SECOND);

    /**
     * Effective host-to-device bandwidth of PCIe 4.0 x16 (the A100's link; 32 GB/s raw per
     * direction, half of PCIe 5.0): half of {@link #PCIE5_X16_EFFECTIVE_BYTES_PER_SECOND} [derived].
     */
    public static final double PCIE4_X16_EFFECTIVE_BYTES_PER_SECOND = PCIE5_X16_EFFECTIVE_BYTES_PER_SECOND / 2;
    /** Dense BF16 peak of an H100 SXM and an A100 SXM, TFLOP/s (inference-sim's hardware_config.json, NVIDIA datasheets) [read]. */
    public static final double H100_BF16_TFLOPS = 989.5;
    public static final double A100_BF16_TFLOPS = 312.0;
    /** HBM bandwidth of an H100 SXM (HBM3) and an A100-80GB SXM (HBM2e), TB/s (same sources) [read]. */
    public static final double H100_HBM_TBPS = 3.35;
    public static final double A100_HBM_TBPS = 2.039;
    /**
     * Llama-3.1-8B on one A100-80GB. T0 and a are inference-sim's blackbox fit for
     * meta-llama/llama-3.1-8b-instruct, A100-80, TP 1, vLLM 0.8.4 (defaults.yaml, beta_coeffs
     * [16441.5 µs, 47.84 µs/token, 18.21 µs/decode token]; removed from that file in April 2026,
     * commit 90522ded) [read], as the H100 profile takes T0 and a from its H100 fit. The physics
     * terms are the H100's scaled by the hardware: k (attention) and b (per decode sequence) are
     * compute-bound, times 989.5 / 312 = 3.17; v (KV read in decode) is memory-bound, times
     * 3.35 / 2.039 = 1.64 [derived]. h: 128 KiB per token over PCIe 4.0 x16 at an effective
     * 12.5 GB/s = 10.5 µs [derived]. Idle 1k-token prefill step ≈ 66 ms (H100 27 ms); decode step at
     * batch 1 ≈ 16.5 ms (H100 6.6 ms), above the 10.7 ms the bandwidth ratio alone gives the H100's T0.
     */
    public static final double LLAMA_8B_A100_T0_MS = 16.44;
    public static final double LLAMA_8B_A100_PREFILL_TOKEN_MS = 0.0478;
    public static final double LLAMA_8B_A100_ATTENTION_MS = LLAMA_8B_H100_ATTENTION_MS * H100_BF16_TFLOPS / A100_BF16_TFLOPS;
    public static final double LLAMA_8B_A100_DECODE_SEQUENCE_MS = LLAMA_8B_H100_DECODE_SEQUENCE_MS * H100_BF16_TFLOPS / A100_BF16_TFLOPS;
    public static final double LLAMA_8B_A100_DECODE_CONTEXT_TOKEN_MS = LLAMA_8B_H100_DECODE_CONTEXT_TOKEN_MS * H100_HBM_TBPS / A100_HBM_TBPS;
    public static final double LLAMA_8B_PCIE4_HOST_LOAD_TOKEN_MS =
            hostLoadMsPerToken(LLAMA_8B_KV_BYTES_PER_TOKEN, PCIE4_X16_EFFECTIVE_BYTES_PER_SECOND);

    public CostModel {
        if (!(speed > 0)) {
            throw new IllegalArgumentException("speed must be positive, was " + speed);
        }
        if (!(hostLoadMsPerToken >= 0) || Double.isInfinite(hostLoadMsPerToken)) {
            throw new IllegalArgumentException("host load time per token must be finite and not negative, was "
                    + hostLoadMsPerToken);
        }
    }

    /** A model whose host loads cost {@link #LLAMA_8B_PCIE5_HOST_LOAD_TOKEN_MS} (the 8B model's KV over PCIe 5.0). */
    public CostModel(double stepOverheadMs, double perPrefillTokenMs, double attentionMsPerTokenSquared,
                     double perDecodeSequenceMs, double perDecodeContextTokenMs, double speed) {
        this(stepOverheadMs, perPrefillTokenMs, attentionMsPerTokenSquared, perDecodeSequenceMs, perDecodeContextTokenMs,
                speed, LLAMA_8B_PCIE5_HOST_LOAD_TOKEN_MS);
    }

    /** ms per token to copy {@code kvBytesPerToken} at {@code bytesPerSecond}. */
    public static double hostLoadMsPerToken(long kvBytesPerToken, double bytesPerSecond) {
        return kvBytesPerToken * 1000.0 / bytesPerSecond;
    }

    /** This model with host loads costing {@code msPerToken} per token. */
    public CostModel withHostLoadMsPerToken(double msPerToken) {
        return new CostModel(stepOverheadMs, perPrefillTokenMs, attentionMsPerTokenSquared, perDecodeSequenceMs,
                perDecodeContextTokenMs, speed, msPerToken);
    }

    public static CostModel llama8bH100() {
        return llama8bH100(1.0);
    }

    /** The 8B/H100 model run {@code speed} times faster (2.0 = half the step time). */
    public static CostModel llama8bH100(double speed) {
        return new CostModel(LLAMA_8B_H100_T0_MS, LLAMA_8B_H100_PREFILL_TOKEN_MS, LLAMA_8B_H100_ATTENTION_MS,
                LLAMA_8B_H100_DECODE_SEQUENCE_MS, LLAMA_8B_H100_DECODE_CONTEXT_TOKEN_MS, speed,
                LLAMA_8B_PCIE5_HOST_LOAD_TOKEN_MS);
    }

    /** Llama-3.1-8B on one A100-80GB: see {@link #LLAMA_8B_A100_T0_MS}. */
    public static CostModel llama8bA100() {
        return new CostModel(LLAMA_8B_A100_T0_MS, LLAMA_8B_A100_PREFILL_TOKEN_MS, LLAMA_8B_A100_ATTENTION_MS,
                LLAMA_8B_A100_DECODE_SEQUENCE_MS, LLAMA_8B_A100_DECODE_CONTEXT_TOKEN_MS, 1.0,
                LLAMA_8B_PCIE4_HOST_LOAD_TOKEN_MS);
    }

    /** The attention work {@code n·(c + n/2)} of prefilling {@code newTokens} after {@code computedTokens}. */
    public static double prefillAttention(long newTokens, long computedTokens) {
        return newTokens * (computedTokens + newTokens / 2.0);
    }

    /** A step that loads nothing from the host tier: see {@link #stepMs(long, double, int, long, long)}. */
    public double stepMs(long prefillTokens, double prefillAttention, int decodeSequences, long decodeContextTokens) {
        return stepMs(prefillTokens, prefillAttention, decodeSequences, decodeContextTokens, 0);
    }

    /**
     * @param prefillTokens        P, uncached tokens prefilled in the step
     * @param prefillAttention     Σ n_i·(c_i + n_i/2) over the step's prefill requests
     * @param decodeSequences      D
     * @param decodeContextTokens  C
     * @param hostLoadedTokens     L, prefix tokens loaded from the host tier before the step's forward pass
     */
    public double stepMs(long prefillTokens, double prefillAttention, int decodeSequences, long decodeContextTokens,
                         long hostLoadedTokens) {
        double ms = stepOverheadMs
                + perPrefillTokenMs * prefillTokens
                + attentionMsPerTokenSquared * prefillAttention
                + perDecodeSequenceMs * decodeSequences
                + perDecodeContextTokenMs * decodeContextTokens
                + hostLoadMsPerToken * hostLoadedTokens;
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
