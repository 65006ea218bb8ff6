package io.kvroute.router.routing;

import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The router's model of an engine's prefill cost, the same step-time model the simulated GPU runs
 * (ENGINE_MODEL.md): {@code a} ms per prefilled token, {@code k} ms per token pair of attention
 * (a prompt's new tokens attend to its cached ones and to each other), {@code t0} ms per step of
 * at most {@code stepTokens} tokens, and decode work carried by every step ({@code b} per decoding
 * sequence, {@code v} per token of their context), and {@code h} ms per cached token loaded back
 * from host memory. One per model and GPU kind ({@link #NAMED}); the router is told which by
 * {@code router.engine.model}.
 */
public record TtftModel(double t0Ms, double aMsPerToken, double kMsPerTokenPair, double bMsPerSequence,
                        double vMsPerContextToken, int stepTokens, double hMsPerHostToken) {
    /** h: 128 KiB of KV per token over PCIe 5.0 x16 at an effective 25 GB/s, as the simulated engine copies it. */
    public static final TtftModel LLAMA_8B_H100 = new TtftModel(6.5, 0.020, 1.3e-6, 0.0044, 7.6e-5, 8_192,
            128 * 1024 * 1000.0 / 25e9);
    /**
     * Llama-3.1-70B on four H100s (tensor parallel 4), ENGINE_MODEL.md's 70B column; h: 80 KiB of KV
     * per token per GPU over the same link.
     */
    public static final TtftModel LLAMA_70B_4XH100 = new TtftModel(12.6, 0.076, 1.6e-6, 0.0044, 4.8e-5, 8_192,
            80 * 1024 * 1000.0 / 25e9);
    /**
     * Llama-3.1-8B on one A100-80GB, as the simulated engine's {@code CostModel.llama8bA100()}: t0 and a
     * from inference-sim's A100-80 fit (vLLM 0.8.4), k and b the H100's times the BF16 peak ratio
     * 989.5 / 312, v times the HBM ratio 3.35 / 2.039; vLLM's 2,048-token step budget on an A100; h:
     * 128 KiB over PCIe 4.0 x16 at an effective 12.5 GB/s.
     */
    public static final TtftModel LLAMA_8B_A100 = new TtftModel(16.44, 0.0478, 1.3e-6 * 989.5 / 312.0,
            0.0044 * 989.5 / 312.0, 7.6e-5 * 3.35 / 2.039, 2_048, 128 * 1024 * 1000.0 / 12.5e9);
    /** The models by the name {@code router.engine.model} and the bench's {@code --engine} give them. */
    public static final Map<String, TtftModel> NAMED = Map.of("llama-8b-h100", LLAMA_8B_H100, "llama-8b-a100", LLAMA_8B_A100,
            "llama-70b-4xh100", LLAMA_70B_4XH100);

    /** The model of that name; an unknown name fails with the known ones. */
    public static TtftModel named(String name) {
        TtftModel model = NAMED.get(name);
        if (model == null) {
            throw new IllegalArgumentException("unknown engine model '" + name + "', known: " + names());
        }
        return model;
    }

    /** The names of {@link #NAMED}, sorted. */
    public static List<String> names() {
        return List.copyOf(new TreeSet<>(NAMED.keySet()));
    }

    /** Prefill time of {@code newTokens} with {@code cachedTokens} already in KV, alone on the GPU. */
    public double prefillMs(long newTokens, long cachedTokens) {
        if (newTokens <= 0) {
            return t0Ms;
        }
        return steps(newTokens) * t0Ms + aMsPerToken * newTokens + kMsPerTokenPair * newTokens * (cachedTokens + newTokens / 2.0);
    }

    /** Time to copy {@code tokens} cached tokens' KV from host memory back to the GPU before the prefill. */
    public double hostLoadMs(long tokens) {
        return hMsPerHostToken * tokens;
    }

    /** Prefill time of a queue of {@code tokens} whose prompts average {@code averagePrompt} tokens. */
    public double queuedPrefillMs(long tokens, double averagePrompt) {
        if (tokens <= 0) {
            return 0;
        }
        return queuedTokensMs(tokens) + kMsPerTokenPair * tokens * averagePrompt / 2.0;
    }

    /**
     * Prefill time of a queue of {@code tokens} whose attention work the worker reported as
     * {@code attentionPairs} token pairs (each prompt's tokens left * (its tokens in KV + half those left)).
     */
    public double queuedPrefillMsOfAttention(long tokens, long attentionPairs) {
        if (tokens <= 0) {
            return 0;
        }
        return queuedTokensMs(tokens) + kMsPerTokenPair * attentionPairs;
    }

    /** A queue's step overheads and per-token work: its prefill time but for the attention. */
    private double queuedTokensMs(long tokens) {
        return steps(tokens) * t0Ms + aMsPerToken * tokens;
    }

    /** One engine step carrying {@code decodeMsPerStep} of decode work and no prefill. */
    public double stepMs(double decodeMsPerStep) {
        return t0Ms + decodeMsPerStep;
    }

    /** Prefill time of one full step ({@code stepTokens} new tokens, nothing cached): the longest a step's prefill runs. */
    public double fullStepMs() {
        return prefillMs(stepTokens, 0);
    }

    /** What the decoding batch adds to each step while prefill runs. */
    public double decodeMsPerStep(int decodingSequences, long contextTokens) {
        return bMsPerSequence * decodingSequences + vMsPerContextToken * contextTokens;
    }

    public long steps(long tokens) {
        return Math.max(1, (tokens + stepTokens - 1) / stepTokens);
    }
}
