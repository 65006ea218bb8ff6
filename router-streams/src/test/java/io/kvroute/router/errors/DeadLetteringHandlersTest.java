package io.kvroute.router.errors;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvroute.schemas.registry.SchemaRegistries;
import io.kvroute.schemas.registry.SchemaRegistryException;
import io.kvroute.schemas.serde.AvroSerde;
import io.kvroute.schemas.serde.SerdeConfig;
import io.kvroute.schemas.topics.DeadLetterHeaders;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

class DeadLetteringHandlersTest {
    private static final String REGISTRY = "mock://dead-lettering-handlers";
    private static final Map<String, Object> CONFIG = Map.of(
            DeadLetters.DLQ_TOPIC, "kvroute.dlq", DeadLetters.RESPONSES_TOPIC, "kvroute.responses",
            SerdeConfig.SCHEMA_REGISTRY_URL, REGISTRY);

    /** The source record's coordinates, as Streams hands them to a handler. */
    private record Context(String topic, int partition, long offset, byte[] sourceRawKey, byte[] sourceRawValue)
            implements ErrorHandlerContext {
        @Override public Headers headers() { return new RecordHeaders(); }
        @Override public String processorNodeId() { return "kvroute-routing"; }
        @Override public TaskId taskId() { return new TaskId(0, partition); }
        @Override public long timestamp() { return 0; }
    }

    private static final Context CONTEXT = new Context("kvroute.requests", 2, 41,
            "req-7".getBytes(StandardCharsets.UTF_8), new byte[] {0, 0, 0, 0, 1, 2});

    @Test
    void shouldDeadLetterAndRejectARequestWhoseProcessingThrows() {
        DeadLetteringProcessingHandler handler = new DeadLetteringProcessingHandler();
        handler.configure(CONFIG);

        ProcessingExceptionHandler.Response response = handler.handleError(CONTEXT,
                new Record<>("req-7", "value", 0L), new IllegalStateException("policy placed on a non-candidate"));

        assertThat(response.result()).isEqualTo(ProcessingExceptionHandler.Result.RESUME);
        assertDeadLetteredAndRejected(response.deadLetterQueueRecords(), "policy placed on a non-candidate");
    }

    @Test
    void shouldFailOnARegistryOutageSoTheRecordIsRetried() {
        DeadLetteringProcessingHandler handler = new DeadLetteringProcessingHandler();
        handler.configure(CONFIG);

        ProcessingExceptionHandler.Response response = handler.handleError(CONTEXT, new Record<>("req-7", "value", 0L),
                new RuntimeException(new SchemaRegistryException("schema registry at http://127.0.0.1:1/ is not reachable")));

        assertThat(response.result()).isEqualTo(ProcessingExceptionHandler.Result.FAIL);
        assertThat(response.deadLetterQueueRecords()).isEmpty();
    }

    @Test
    void shouldDeadLetterAndRejectARequestTooLargeToDispatchButFailOnOtherProductionErrors() {
        DeadLetteringProductionHandler handler = new DeadLetteringProductionHandler();
        handler.configure(CONFIG);
        ProducerRecord<byte[], byte[]> dispatch = new ProducerRecord<>("kvroute.dispatch.us-east", new byte[10]);

        ProductionExceptionHandler.Response tooLarge = handler.handleError(CONTEXT, dispatch, new RecordTooLargeException("too large"));
        ProductionExceptionHandler.Response other = handler.handleError(CONTEXT, dispatch, new IllegalStateException("other"));

        assertThat(tooLarge.result()).isEqualTo(ProductionExceptionHandler.Result.RESUME);
        assertDeadLetteredAndRejected(tooLarge.deadLetterQueueRecords(), "too large");
        assertThat(other.result()).isEqualTo(ProductionExceptionHandler.Result.FAIL);
    }

    private static void assertDeadLetteredAndRejected(List<ProducerRecord<byte[], byte[]>> records, String reason) {
        assertThat(records).hasSize(2);
        ProducerRecord<byte[], byte[]> dead = records.get(0);
        assertThat(dead.topic()).isEqualTo("kvroute.dlq");
        assertThat(dead.value()).isEqualTo(CONTEXT.sourceRawValue());
        assertThat(header(dead, DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("41");
        assertThat(header(dead, DeadLetterHeaders.ERROR_MESSAGE)).isEqualTo(reason);
        ProducerRecord<byte[], byte[]> rejected = records.get(1);
        assertThat(rejected.topic()).isEqualTo("kvroute.responses");
        ResponseEvent event = new AvroSerde<>(ResponseEvent.class, SchemaRegistries.forUrl(REGISTRY))
                .deserialize("kvroute.responses", rejected.value());
        assertThat(event.getRequestId()).isEqualTo("req-7");
        assertThat(event.getTerminal().getStatus()).isEqualTo(ResponseStatus.REJECTED);
    }

    private static String header(ProducerRecord<?, ?> record, String name) {
        return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldAnswerARecordOfATenantsRequestsTopicOnThatTenantsResponsesTopic() {
        DeadLetters deadLetters = new DeadLetters(Map.of(DeadLetters.DLQ_TOPIC, "kvroute.dlq", DeadLetters.RESPONSES_TOPIC,
                "kvroute.responses", DeadLetters.REQUESTS_TOPIC, "kvroute.requests", SerdeConfig.SCHEMA_REGISTRY_URL, REGISTRY));
        Context ofAcme = new Context("kvroute.requests.acme", 0, 3, "req-8".getBytes(StandardCharsets.UTF_8), new byte[] {9});

        List<ProducerRecord<byte[], byte[]>> records = deadLetters.records(ofAcme, new IllegalStateException("boom"), 1);

        assertThat(records).extracting(ProducerRecord::topic).containsExactly("kvroute.dlq", "kvroute.responses.acme");
        assertThat(deadLetters.answerTopic("kvroute.requests")).isEqualTo("kvroute.responses");
    }
}
