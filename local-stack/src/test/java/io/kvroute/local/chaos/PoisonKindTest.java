package io.kvroute.local.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.ingress.client.InferenceRequestFactory;
import io.kvroute.ingress.client.SubmitRequest;
import io.kvroute.ingress.prompt.PromptHasher;
import io.kvroute.schemas.serde.Serdes;
import io.kvroute.schemas.v1.InferenceRequest;
import java.time.Clock;
import java.util.Map;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PoisonKindTest {
    private final Serde<InferenceRequest> serde = new Serdes(Map.of("schema.registry.url", "mock://poison-kind"))
            .valueSerde(InferenceRequest.class);

    @ParameterizedTest
    @EnumSource(PoisonKind.class)
    void shouldTurnAValidRequestIntoBytesTheRequestSerdeCannotRead(PoisonKind kind) {
        InferenceRequest request = new InferenceRequestFactory(new PromptHasher(64), "t", Clock.systemUTC())
                .create(SubmitRequest.builder().requestId("r-1").model("m").prompt("hello there").maxTokens(8).build());
        byte[] valid = serde.serializer().serialize("requests", request);
        assertThat(serde.deserializer().deserialize("requests", valid).getRequestId()).isEqualTo("r-1");

        byte[] poison = kind.corrupt(valid);

        assertThat(poison).isNotEqualTo(valid);
        assertThatThrownBy(() -> serde.deserializer().deserialize("requests", poison)).isInstanceOf(RuntimeException.class);
    }
}
