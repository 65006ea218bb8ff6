package io.kvroute.router.errors;

import io.kvroute.router.topology.internal.Conversions;
import io.kvroute.router.topology.internal.RequestIntake;
import io.kvroute.schemas.serde.AvroSerde;
import io.kvroute.schemas.serde.SerdeConfig;
import io.kvroute.schemas.registry.SchemaRegistries;
import io.kvroute.schemas.topics.DeadLetterHeaders;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.ErrorHandlerContext;

/**
 * What the router's exception handlers write for a request record that made the topology throw:
 * the original bytes on the dead-letter topic with the reason in headers, and, when the key (the
 * request id) is readable, a terminal REJECTED result so its sender is not left waiting.
 */
public final class DeadLetters {
    /** Streams properties the router sets so its handlers know where to write. */
    public static final String DLQ_TOPIC = "kvroute.errors.dlq.topic";
    public static final String RESPONSES_TOPIC = "kvroute.errors.responses.topic";
    public static final String REQUESTS_TOPIC = "kvroute.errors.requests.topic";

    private final String dlqTopic;
    private final String responsesTopic;
    private final String requestsTopic;
    private final AvroSerde<ResponseEvent> responses;

    DeadLetters(Map<String, ?> configs) {
        this.dlqTopic = required(configs, DLQ_TOPIC);
        this.responsesTopic = required(configs, RESPONSES_TOPIC);
        Object requests = configs.get(REQUESTS_TOPIC);
        this.requestsTopic = requests == null ? "" : requests.toString();
        required(configs, SerdeConfig.SCHEMA_REGISTRY_URL);
        this.responses = new AvroSerde<>(ResponseEvent.class, SchemaRegistries.forConfig(configs));
    }

    private static String required(Map<String, ?> configs, String key) {
        Object value = configs.get(key);
        if (value == null) {
            throw new IllegalStateException("the router's exception handlers need " + key + " in the Streams properties");
        }
        return value.toString();
    }

    List<ProducerRecord<byte[], byte[]>> records(ErrorHandlerContext context, Exception error, long nowMs) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>(2);
        Headers headers = DeadLetterHeaders.add(new RecordHeaders(), context.topic(), context.partition(), context.offset(),
                error, String.valueOf(error.getMessage()), nowMs);
        records.add(new ProducerRecord<>(dlqTopic, null, context.sourceRawKey(), context.sourceRawValue(), headers));
        String requestId = RequestIntake.readableKey(context.sourceRawKey());
        if (requestId != null) {
            ResponseEvent rejected = Conversions.terminal(requestId, null, ResponseStatus.REJECTED,
                    "the router could not process this request (" + error.getClass().getSimpleName() + "); it is in the dead-letter topic",
                    nowMs);
            records.add(new ProducerRecord<>(answerTopic(context.topic()), utf8(requestId), responses.serialize(responsesTopic, rejected)));
        }
        return records;
    }

    /**
     * Where the sender of a record read from {@code sourceTopic} reads its answer: with topics per tenant, a tenant's
     * requests topic {@code <prefix>.requests.<t>} is answered on {@code <prefix>.responses.<t>}; else the one
     * responses topic.
     */
    String answerTopic(String sourceTopic) {
        if (sourceTopic != null && sourceTopic.startsWith(requestsTopic + ".")) {
            return responsesTopic + sourceTopic.substring(requestsTopic.length());
        }
        return responsesTopic;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
