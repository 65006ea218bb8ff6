package io.kvroute.ingress.prompt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.schemas.v1.ChatMessage;
import java.util.List;
import org.junit.jupiter.api.Test;

class PromptHasherTest {
    private final PromptHasher hasher = new PromptHasher(64);

    @Test
    void shouldEstimateTokensAsCharsOverFourRoundedUp() {
        assertThat(hasher.fingerprint("").promptTokenEstimate()).isZero();
        assertThat(hasher.fingerprint("abcd").promptTokenEstimate()).isEqualTo(1);
        assertThat(hasher.fingerprint("abcde").promptTokenEstimate()).isEqualTo(2);
        assertThat(hasher.fingerprint("x".repeat(1001)).promptTokenEstimate()).isEqualTo(251);
    }

    @Test
    void shouldHashOnlyFullBlocksOf256Chars() {
        assertThat(hasher.fingerprint("x".repeat(255)).blockCount()).isZero();
        assertThat(hasher.fingerprint("x".repeat(256)).blockCount()).isEqualTo(1);
        assertThat(hasher.fingerprint("x".repeat(767)).blockCount()).isEqualTo(2);
        assertThat(new PromptHasher(16).fingerprint("x".repeat(128)).blockCount()).isEqualTo(2);
    }

    @Test
    void shouldShareLeadingHashesForASharedPrefix() {
        String prefix = text(1, 256 * 3);
        long[] a = hasher.fingerprint(prefix + text(2, 256 * 2)).blockHashes();
        long[] b = hasher.fingerprint(prefix + text(3, 256 * 2)).blockHashes();

        assertThat(a).hasSize(5);
        assertThat(b).hasSize(5);
        for (int i = 0; i < 3; i++) {
            assertThat(a[i]).isEqualTo(b[i]);
        }
        assertThat(a[3]).isNotEqualTo(b[3]);
        assertThat(a[4]).isNotEqualTo(b[4]);
    }

    @Test
    void shouldChangeEveryLaterHashWhenAnEarlyBlockDiffers() {
        String tail = text(7, 256 * 4);
        long[] a = hasher.fingerprint("A" + text(1, 255) + tail).blockHashes();
        long[] b = hasher.fingerprint("B" + text(1, 255) + tail).blockHashes();

        for (int i = 0; i < a.length; i++) {
            assertThat(a[i]).as("block %d", i).isNotEqualTo(b[i]);
        }
    }

    @Test
    void shouldChainSoThatEqualBlocksAtDifferentPositionsHashDifferently() {
        long[] hashes = hasher.fingerprint("z".repeat(256 * 3)).blockHashes();

        assertThat(hashes).doesNotHaveDuplicates();
    }

    @Test
    void shouldBeDeterministicWithKnownValues() {
        PromptFingerprint first = hasher.fingerprint(text(5, 600));
        PromptFingerprint second = new PromptHasher(64).fingerprint(text(5, 600));

        assertThat(first).isEqualTo(second);
        // pinned so a change of the hash functions (which would break routers reading old hashes) is noticed
        assertThat(hasher.fingerprint("a".repeat(256)).blockHashes()[0]).isEqualTo(-1978213501334535759L);
        assertThat(hasher.fingerprint("kvroute ".repeat(64)).blockHashes()[1]).isEqualTo(-5842160177336005573L);
    }

    @Test
    void shouldRenderEveryChatMessageNotOnlyTheFirst() {
        String system = text(1, 300);
        List<ChatMessage> one = List.of(new ChatMessage("system", system), new ChatMessage("user", text(2, 600)));
        List<ChatMessage> other = List.of(new ChatMessage("system", system), new ChatMessage("user", text(3, 600)));

        PromptFingerprint a = hasher.fingerprint(one);
        PromptFingerprint b = hasher.fingerprint(other);

        assertThat(PromptHasher.canonicalText(one)).contains(text(2, 600));
        assertThat(a.blockHashes()[0]).isEqualTo(b.blockHashes()[0]);
        assertThat(a.blockHashes()[a.blockCount() - 1]).isNotEqualTo(b.blockHashes()[b.blockCount() - 1]);
        assertThat(a.promptTokenEstimate()).isEqualTo(PromptHasher.estimateTokens(PromptHasher.canonicalText(one).length()));
    }

    @Test
    void shouldHashChatLikeItsCanonicalTextButNotLikeTheBareContent() {
        List<ChatMessage> chat = List.of(new ChatMessage("user", text(4, 1000)));

        assertThat(hasher.fingerprint(chat)).isEqualTo(hasher.fingerprint(PromptHasher.canonicalText(chat)));
        assertThat(hasher.fingerprint(chat).blockHashes()[0]).isNotEqualTo(hasher.fingerprint(text(4, 1000)).blockHashes()[0]);
    }

    @Test
    void shouldDistinguishRolesWithTheSameContent() {
        String content = text(6, 512);

        assertThat(hasher.fingerprint(List.of(new ChatMessage("user", content))).blockHashes()[0])
                .isNotEqualTo(hasher.fingerprint(List.of(new ChatMessage("system", content))).blockHashes()[0]);
    }

    @Test
    void shouldRejectANonPositiveBlockSize() {
        assertThatThrownBy(() -> new PromptHasher(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0");
    }

    @Test
    void shouldNotExposeItsHashArray() {
        PromptFingerprint fingerprint = hasher.fingerprint(text(1, 512));
        long first = fingerprint.blockHashes()[0];

        fingerprint.blockHashes()[0] = 42;

        assertThat(fingerprint.blockHashes()[0]).isEqualTo(first);
        assertThat(fingerprint.hashList()).hasSize(2).first().isEqualTo(first);
    }

    static String text(int seed, int length) {
        StringBuilder s = new StringBuilder(length);
        long x = seed * 0x9e3779b97f4a7c15L + 1;
        while (s.length() < length) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            s.append((char) ('a' + Math.floorMod(x, 26)));
        }
        return s.toString();
    }
}
