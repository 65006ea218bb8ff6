package io.kvroute.ingress.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.ingress.prompt.PrefixSalt;
import io.kvroute.ingress.prompt.PromptHasher;
import io.kvroute.schemas.v1.InferenceRequest;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class InferenceRequestFactoryTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
    private static final String SYSTEM = "You are a careful assistant for the accounts team. ".repeat(40);
    private static final String SECRET = "shared-by-acme-and-globex-2026";

    private final AtomicInteger ids = new AtomicInteger();

    private InferenceRequestFactory factory(PrefixSalt configured) {
        return new InferenceRequestFactory(new PromptHasher(64), "acme", configured, CLOCK, () -> "r-" + ids.incrementAndGet());
    }

    private static SubmitRequest request(String tenant) {
        return SubmitRequest.builder().model("llama-3.1-8b").maxTokens(8).tenant(tenant).prompt(SYSTEM + "Question?").build();
    }

    @Test
    void shouldGiveTheSamePromptUnderTwoTenantsDisjointHashes() {
        InferenceRequestFactory factory = factory(null);

        InferenceRequest acme = factory.create(request("acme"));
        InferenceRequest globex = factory.create(request("globex"));

        assertThat(acme.getPrefixBlockHashes()).isNotEmpty().doesNotContainAnyElementsOf(globex.getPrefixBlockHashes());
        assertThat(acme.getPrefixBlockHashes()).isEqualTo(factory.create(request("acme")).getPrefixBlockHashes());
        assertThat(acme.getCacheSalt()).isEqualTo(PrefixSalt.ofTenant("acme").cacheSalt()).isNotEqualTo(globex.getCacheSalt());
        assertThat(acme.getPrefixBlockHashes()).as("never the unsalted hashes")
                .doesNotContainAnyElementsOf(new PromptHasher(64).fingerprint(SYSTEM + "Question?").hashList());
    }

    @Test
    void shouldGiveTenantsUnderOneConfiguredSaltTheSameHashes() {
        InferenceRequest acme = factory(PrefixSalt.ofSecret(SECRET)).create(request("acme"));
        InferenceRequest globex = new InferenceRequestFactory(new PromptHasher(64), "globex", PrefixSalt.ofSecret(SECRET), CLOCK)
                .create(request("globex"));

        assertThat(acme.getPrefixBlockHashes()).isNotEmpty().isEqualTo(globex.getPrefixBlockHashes());
        assertThat(acme.getCacheSalt()).isEqualTo(globex.getCacheSalt()).isEqualTo(PrefixSalt.ofSecret(SECRET).cacheSalt())
                .doesNotContain(SECRET);
        assertThat(acme.getPrefixBlockHashes()).doesNotContainAnyElementsOf(factory(null).create(request("acme")).getPrefixBlockHashes());
    }

    @Test
    void shouldSaltWithTheDefaultTenantWhenTheRequestNamesNone() {
        InferenceRequest request = factory(null).create(SubmitRequest.builder().model("m").maxTokens(1).prompt(SYSTEM).build());

        assertThat(request.getTenant()).isEqualTo("acme");
        assertThat(request.getCacheSalt()).isEqualTo(PrefixSalt.ofTenant("acme").cacheSalt());
        assertThat(request.getPrefixBlockHashes()).isEqualTo(new PromptHasher(64).fingerprint(SYSTEM, PrefixSalt.ofTenant("acme")).hashList());
    }
}
