package io.kvroute.ingress.prompt;

import io.kvroute.schemas.v1.ChatMessage;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Turns a prompt into a {@link PromptFingerprint}: the token estimate and the chained block hashes
 * that the router and the engines use as opaque KV-cache block ids.
 *
 * <p>The prompt is first rendered as canonical text: a completion prompt as is; chat messages as
 * every message in order, each {@code <|role|>\n content \n}, so two conversations share leading
 * blocks exactly as far as their rendered text agrees. The token estimate is
 * {@code ceil(chars / 4)}; a block is {@code blockTokens * 4} characters. As in vLLM, only full
 * blocks are hashed (a partial last block cannot be reused), and each hash depends on every block
 * before it: {@code h_i = combine(h_{i-1}, hash64(block_i))}, so equal hashes at position i imply
 * equal prefixes up to block i. Block content is hashed as UTF-16 code units, so a block boundary
 * inside a surrogate pair is harmless. The functions are fixed 64-bit arithmetic, identical on
 * every JVM.
 *
 * <p>Requests are fingerprinted under a {@link PrefixSalt}: each link of the chain is then
 * {@code h_i = HMAC-SHA256(key, h_{i-1} || hash64(block_i))} cut to 64 bits, so requests under
 * different salts never share a hash, and without the key nobody can check a guessed prompt
 * against published hashes (an unkeyed step would let anyone who sees {@code h_{i-1}} test guesses
 * of block i, and a keyed first link alone can be inverted). The unsalted chain remains for
 * workloads whose hash ids are given unsalted, such as replayed traces.
 */
public final class PromptHasher {
    public static final int DEFAULT_BLOCK_TOKENS = 64;
    public static final int CHARS_PER_TOKEN = 4;
    static final long CHAIN_SEED = 0x6b76726f75746531L;

    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;
    private static final long GOLDEN = 0x9e3779b97f4a7c15L;

    private final int blockTokens;

    public PromptHasher(int blockTokens) {
        if (blockTokens < 1) {
            throw new IllegalArgumentException("blockTokens must be at least 1, was " + blockTokens);
        }
        this.blockTokens = blockTokens;
    }

    public PromptHasher() {
        this(DEFAULT_BLOCK_TOKENS);
    }

    public int blockTokens() {
        return blockTokens;
    }

    /** The unsalted fingerprint: for workloads whose hashes are given unsalted (traces); requests use {@link #fingerprint(String, PrefixSalt)}. */
    public PromptFingerprint fingerprint(String prompt) {
        return fingerprintText(Objects.requireNonNull(prompt, "prompt"), null);
    }

    /** The unsalted fingerprint of chat messages; requests use {@link #fingerprint(List, PrefixSalt)}. */
    public PromptFingerprint fingerprint(List<ChatMessage> messages) {
        return fingerprintText(canonicalText(messages), null);
    }

    /** The fingerprint with its hash chain keyed by {@code salt}. */
    public PromptFingerprint fingerprint(String prompt, PrefixSalt salt) {
        return fingerprintText(Objects.requireNonNull(prompt, "prompt"), Objects.requireNonNull(salt, "salt"));
    }

    /** The fingerprint of chat messages with its hash chain keyed by {@code salt}. */
    public PromptFingerprint fingerprint(List<ChatMessage> messages, PrefixSalt salt) {
        return fingerprintText(canonicalText(messages), Objects.requireNonNull(salt, "salt"));
    }

    /** The text every message renders to, in order; the hashes and the estimate are taken from it. */
    public static String canonicalText(List<ChatMessage> messages) {
        Objects.requireNonNull(messages, "messages");
        StringBuilder text = new StringBuilder();
        for (ChatMessage message : messages) {
            text.append("<|").append(message.getRole()).append("|>\n").append(message.getContent()).append('\n');
        }
        return text.toString();
    }

    public static int estimateTokens(int chars) {
        return (int) ((chars + (long) CHARS_PER_TOKEN - 1) / CHARS_PER_TOKEN);
    }

    private PromptFingerprint fingerprintText(String text, PrefixSalt salt) {
        int blockChars = blockTokens * CHARS_PER_TOKEN;
        int blocks = text.length() / blockChars;
        long[] hashes = new long[blocks];
        KeyedLink keyed = salt == null || blocks == 0 ? null : new KeyedLink(salt);
        long chain = CHAIN_SEED;
        for (int i = 0; i < blocks; i++) {
            long block = hashChars(text, i * blockChars, blockChars);
            chain = keyed == null ? combine(chain, block) : keyed.link(chain, block);
            hashes[i] = chain;
        }
        return new PromptFingerprint(estimateTokens(text.length()), hashes, blockTokens);
    }

    /** One link of a salted chain: HMAC-SHA256 under the salt's key of the previous link and the block's hash, cut to 64 bits. */
    static final class KeyedLink {
        private final Mac mac;
        private final ByteBuffer input = ByteBuffer.allocate(2 * Long.BYTES);

        KeyedLink(PrefixSalt salt) {
            try {
                mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(salt.key(), "HmacSHA256"));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("every Java platform has HmacSHA256", e);
            }
        }

        long link(long previous, long block) {
            input.clear();
            input.putLong(previous).putLong(block);
            return ByteBuffer.wrap(mac.doFinal(input.array())).getLong();
        }
    }

    static long combine(long previous, long block) {
        return fmix64(previous * GOLDEN + Long.rotateLeft(block, 23) + (previous >>> 29));
    }

    /** A MurmurHash3-style 64-bit hash of {@code length} UTF-16 code units, four to a word. */
    static long hashChars(CharSequence text, int from, int length) {
        long h = GOLDEN ^ (length * C1);
        int end = from + length;
        int i = from;
        for (; i + 4 <= end; i += 4) {
            long word = text.charAt(i) | ((long) text.charAt(i + 1) << 16)
                    | ((long) text.charAt(i + 2) << 32) | ((long) text.charAt(i + 3) << 48);
            h ^= mixWord(word);
            h = Long.rotateLeft(h, 27) * 5 + 0x52dce729;
        }
        long tail = 0;
        for (int shift = 0; i < end; i++, shift += 16) {
            tail |= (long) text.charAt(i) << shift;
        }
        h ^= mixWord(tail);
        return fmix64(h ^ length);
    }

    private static long mixWord(long word) {
        return Long.rotateLeft(word * C1, 31) * C2;
    }

    static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }
}
