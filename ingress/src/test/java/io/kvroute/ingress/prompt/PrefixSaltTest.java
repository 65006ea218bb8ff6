package io.kvroute.ingress.prompt;

import static io.kvroute.ingress.prompt.PromptHasherTest.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.schemas.v1.ChatMessage;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class PrefixSaltTest {
    private static final String SECRET = "correct-horse-battery-staple-42";
    private final PromptHasher hasher = new PromptHasher(64);
    private final String systemPrompt = text(9, 256 * 4);

    @Test
    void shouldGiveTwoTenantsDisjointHashesForTheSamePrompt() {
        long[] acme = hasher.fingerprint(systemPrompt, PrefixSalt.ofTenant("acme")).blockHashes();
        long[] globex = hasher.fingerprint(systemPrompt, PrefixSalt.ofTenant("globex")).blockHashes();

        assertThat(acme).hasSize(4);
        assertThat(globex).hasSize(4);
        assertThat(set(acme)).doesNotContainAnyElementsOf(set(globex));
        assertThat(set(acme)).as("salted is not the unsalted chain")
                .doesNotContainAnyElementsOf(set(hasher.fingerprint(systemPrompt).blockHashes()));
    }

    @Test
    void shouldGiveTheSameHashesUnderTheSameSalt() {
        assertThat(hasher.fingerprint(systemPrompt, PrefixSalt.ofSecret(SECRET)))
                .isEqualTo(new PromptHasher(64).fingerprint(systemPrompt, PrefixSalt.ofSecret(SECRET)));
        assertThat(hasher.fingerprint(systemPrompt, PrefixSalt.ofTenant("acme")))
                .isEqualTo(hasher.fingerprint(systemPrompt, PrefixSalt.ofTenant("acme")));
        assertThat(hasher.fingerprint(systemPrompt, PrefixSalt.ofSecret(SECRET)).blockHashes())
                .as("a configured secret is not a tenant's name").doesNotContain(
                        hasher.fingerprint(systemPrompt, PrefixSalt.ofTenant(SECRET)).blockHashes());
    }

    @Test
    void shouldShareLeadingHashesOfASharedPrefixUnderOneSaltOnly() {
        PrefixSalt salt = PrefixSalt.ofTenant("acme");
        long[] a = hasher.fingerprint(systemPrompt + text(2, 512), salt).blockHashes();
        long[] b = hasher.fingerprint(systemPrompt + text(3, 512), salt).blockHashes();

        assertThat(Arrays.copyOf(a, 4)).isEqualTo(Arrays.copyOf(b, 4));
        assertThat(a[4]).isNotEqualTo(b[4]);
        assertThat(a[5]).isNotEqualTo(b[5]);
    }

    @Test
    void shouldSaltChatMessagesAsTheirCanonicalText() {
        List<ChatMessage> chat = List.of(new ChatMessage("system", systemPrompt), new ChatMessage("user", "hi"));
        PrefixSalt salt = PrefixSalt.ofSecret(SECRET);

        assertThat(hasher.fingerprint(chat, salt)).isEqualTo(hasher.fingerprint(PromptHasher.canonicalText(chat), salt));
        assertThat(hasher.fingerprint(chat, salt)).isNotEqualTo(hasher.fingerprint(chat));
    }

    @Test
    void shouldComputeTheSameSaltedHashesOnEveryJvm() {
        // clients of different builds and JVMs must agree, or a shared prefix stops being shared
        assertThat(hasher.fingerprint("a".repeat(256), PrefixSalt.ofTenant("acme")).blockHashes()[0]).isEqualTo(-8711328469472795700L);
        assertThat(hasher.fingerprint("kvroute ".repeat(64), PrefixSalt.ofSecret(SECRET)).blockHashes()[1])
                .isEqualTo(-393298409979716306L);
        assertThat(PrefixSalt.ofTenant("acme").cacheSalt()).isEqualTo("9968a4cfb543259b18ea8ded1028ba8e");
    }

    @Test
    void shouldDeriveACacheSaltThatRevealsNeitherSaltNorTenant() {
        String secretSalt = PrefixSalt.ofSecret(SECRET).cacheSalt();

        assertThat(secretSalt).matches("[0-9a-f]{32}").isEqualTo(PrefixSalt.ofSecret(SECRET).cacheSalt())
                .doesNotContain(SECRET).doesNotContain("correct");
        assertThat(PrefixSalt.ofTenant("acme").cacheSalt()).matches("[0-9a-f]{32}")
                .isNotEqualTo(PrefixSalt.ofTenant("globex").cacheSalt()).isNotEqualTo(secretSalt);
    }

    @Test
    void shouldNeverShowTheSecret() {
        PrefixSalt salt = PrefixSalt.ofSecret(SECRET);

        assertThat(salt.toString()).doesNotContain(SECRET).contains("***");
        assertThat(salt.isSecret()).isTrue();
        assertThat(PrefixSalt.ofTenant("acme").isSecret()).isFalse();
        assertThatThrownBy(() -> PrefixSalt.ofSecret("short-secret"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("12").hasMessageNotContaining("short-secret");
    }

    private static Set<Long> set(long[] hashes) {
        return Arrays.stream(hashes).boxed().collect(Collectors.toSet());
    }
}
