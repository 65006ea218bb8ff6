package io.kvroute.worker.engine;

import java.util.Objects;

/**
 * What an engine needs to run one attempt of a request: sizes and prefix block hashes, and, for
 * engines that drive a real server, the {@link EnginePrompt} (null for engines that only model
 * cost; {@link #toString()} never shows its text). {@code prefixBlockHashes[i]} identifies tokens {@code [i*blockTokens, (i+1)*blockTokens)}
 * of the prompt; hashes are chained, so equal leading hashes mean an equal prefix.
 *
 * @param requestId    the request id (not unique across attempts)
 * @param attempt      the attempt number, 1 for the first dispatch
 * @param promptTokens prompt length in tokens, at least 1
 * @param maxTokens    tokens to generate, at least 1
 * @param prefixBlockHashes chained hashes of the prompt's blocks
 * @param blockTokens  tokens per hash block
 * @param arrivalMs    when the request reached the worker (epoch ms); TTFT is measured from it
 * @param prompt       the prompt text and sampling parameters, or null
 */
public record EngineRequest(String requestId, int attempt, int promptTokens, int maxTokens,
                            long[] prefixBlockHashes, int blockTokens, long arrivalMs, EnginePrompt prompt) {
    public static final int DEFAULT_BLOCK_TOKENS = 64;

    /** A request without prompt text, for engines that only model cost. */
    public EngineRequest(String requestId, int attempt, int promptTokens, int maxTokens,
                         long[] prefixBlockHashes, int blockTokens, long arrivalMs) {
        this(requestId, attempt, promptTokens, maxTokens, prefixBlockHashes, blockTokens, arrivalMs, null);
    }

    public EngineRequest {
        Objects.requireNonNull(requestId, "requestId");
        if (promptTokens < 1) {
            throw new IllegalArgumentException("promptTokens must be at least 1, was " + promptTokens);
        }
        if (maxTokens < 1) {
            throw new IllegalArgumentException("maxTokens must be at least 1, was " + maxTokens);
        }
        if (blockTokens < 1) {
            throw new IllegalArgumentException("blockTokens must be at least 1, was " + blockTokens);
        }
        prefixBlockHashes = prefixBlockHashes == null ? new long[0] : prefixBlockHashes.clone();
    }

    /** Identifies this attempt inside an engine: two attempts of one request may coexist. */
    public String key() {
        return requestId + "#" + attempt;
    }

    @Override
    public long[] prefixBlockHashes() {
        return prefixBlockHashes.clone();
    }

    /** The hash of block {@code i}, without copying the array. */
    public long blockHash(int i) {
        return prefixBlockHashes[i];
    }

    public int blockCount() {
        return prefixBlockHashes.length;
    }

    @Override
    public String toString() {
        return "EngineRequest[" + key() + ", prompt=" + promptTokens + ", max=" + maxTokens
                + ", blocks=" + prefixBlockHashes.length + "x" + blockTokens + "]";
    }
}
