package io.kvroute.bench.trace;

import io.kvroute.ingress.prompt.PromptHasher;
import java.util.SplittableRandom;

/**
 * Builds prompt text for a trace request that carries only block ids: each block id always yields
 * the same text, so requests that share a prefix of block ids share a prefix of text, and the
 * ingress hasher (4 characters per token) finds the same shared blocks the trace describes.
 */
public final class SyntheticPrompt {
    /** The ingress hasher's token estimate, so trace blocks become exactly its hash blocks. */
    public static final int CHARS_PER_TOKEN = PromptHasher.CHARS_PER_TOKEN;
    private static final String[] WORDS = {
        "the", "kernel", "cache", "prefix", "tensor", "router", "region", "token", "batch", "decode",
        "prefill", "layer", "block", "query", "value", "model", "stream", "slot", "queue", "attention",
    };

    private SyntheticPrompt() {
    }

    public static String forRequest(TraceRequest request) {
        int totalChars = request.inputTokens() * CHARS_PER_TOKEN;
        int blockChars = request.blockTokens() * CHARS_PER_TOKEN;
        StringBuilder text = new StringBuilder(totalChars);
        for (long blockId : request.blockIds()) {
            if (text.length() >= totalChars) {
                break;
            }
            String block = blockText(blockId, blockChars);
            text.append(block, 0, Math.min(block.length(), totalChars - text.length()));
        }
        while (text.length() < totalChars) {
            text.append(' ');
        }
        return text.toString();
    }

    static String blockText(long blockId, int chars) {
        SplittableRandom random = new SplittableRandom(blockId * 0x9E3779B97F4A7C15L + 17);
        StringBuilder block = new StringBuilder(chars + 16);
        while (block.length() < chars) {
            block.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
        }
        block.setLength(chars);
        return block.toString();
    }
}
