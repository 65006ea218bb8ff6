package io.kvroute.router.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.Priority;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RequestValidatorTest {
    private static final long NOW = 1_000_000L;
    private final RequestValidator validator = new RequestValidator(Map.of("llama-3.1-8b", 8_192), 6_000, List.of("us-east"),
            new RequestValidator.Bounds(100, 10, 1_000));

    /** Built whole rather than by the builder, whose defaults would load the Priority class outside Avro's trusted packages. */
    private static InferenceRequest request(String cacheSalt) {
        return new InferenceRequest("r-1", null, "acme", "llama-3.1-8b", "Summarise this.", null, 64, null, Priority.BATCH, null,
                List.of(), List.of(11L, 12L), 64, 4, NOW, cacheSalt);
    }

    @Test
    void shouldAcceptARequestWithOrWithoutACacheSaltUpToTheLimit() {
        assertThat(validator.validate(request(null), NOW)).isEmpty();
        assertThat(validator.validate(request("9968a4cfb543259b18ea8ded1028ba8e"), NOW)).isEmpty();
        assertThat(validator.validate(request("s".repeat(RequestValidator.MAX_CACHE_SALT_CHARS)), NOW)).isEmpty();
    }

    @Test
    void shouldRejectACacheSaltOverTheLimitWithItsLengthOnly() {
        String salt = "secret-looking-".repeat(20);

        Optional<Rejection> rejection = validator.validate(request(salt), NOW);

        assertThat(rejection).isPresent();
        assertThat(rejection.get().kind()).isEqualTo(Rejection.CACHE_SALT_TOO_LONG);
        assertThat(rejection.get().reason()).contains("cache salt of 300 characters").contains("256").doesNotContain("secret-looking");
    }
}
