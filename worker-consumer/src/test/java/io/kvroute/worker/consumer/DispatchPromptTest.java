package io.kvroute.worker.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.Priority;
import io.kvroute.worker.engine.EnginePrompt;
import java.util.List;
import org.junit.jupiter.api.Test;

class DispatchPromptTest {
    /** Built whole rather than by the builder, whose defaults would load the Priority class outside Avro's trusted packages. */
    private static InferenceRequest request(String cacheSalt) {
        return new InferenceRequest("r-1", null, "acme", "llama-3.1-8b", "Hello", null, 8, null, Priority.BATCH, null, List.of(),
                List.of(7L), 64, 2, 1_000L, cacheSalt);
    }

    @Test
    void shouldHandTheRequestsCacheSaltToTheEngine() {
        EnginePrompt salted = DispatchConsumer.prompt(request("9968a4cfb543259b18ea8ded1028ba8e"));
        EnginePrompt unsalted = DispatchConsumer.prompt(request(null));

        assertThat(salted.cacheSalt()).isEqualTo("9968a4cfb543259b18ea8ded1028ba8e");
        assertThat(salted.toString()).doesNotContain("9968a4cf").doesNotContain("Hello");
        assertThat(unsalted.cacheSalt()).isNull();
    }
}
