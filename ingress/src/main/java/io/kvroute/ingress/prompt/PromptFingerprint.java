package io.kvroute.ingress.prompt;

import java.util.Arrays;
import java.util.List;

/**
 * What the router may know about a prompt: its estimated size in tokens and the chained hashes of
 * its full blocks of {@code blockTokens} tokens. Never the text itself.
 */
public record PromptFingerprint(int promptTokenEstimate, long[] blockHashes, int blockTokens) {

    public PromptFingerprint {
        blockHashes = blockHashes.clone();
    }

    @Override
    public long[] blockHashes() {
        return blockHashes.clone();
    }

    public int blockCount() {
        return blockHashes.length;
    }

    /** The hashes as a list, the form the Avro {@code prefixBlockHashes} field takes. */
    public List<Long> hashList() {
        return Arrays.stream(blockHashes).boxed().toList();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PromptFingerprint that
                && promptTokenEstimate == that.promptTokenEstimate
                && blockTokens == that.blockTokens
                && Arrays.equals(blockHashes, that.blockHashes);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * promptTokenEstimate + blockTokens) + Arrays.hashCode(blockHashes);
    }

    @Override
    public String toString() {
        return "PromptFingerprint[tokens=" + promptTokenEstimate + ", blocks=" + blockHashes.length + ", blockTokens=" + blockTokens + "]";
    }
}
