package io.kvroute.router.topology.internal;

import io.kvroute.schemas.v1.InferenceRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The values on the router's own admission topic (keyed by tenant): a request to admit, or a
 * {@link QuotaSettlement}. One kind byte, then the request in the registry's Avro format (under
 * the requests topic's subject, so no new subject is registered) or the settlement as
 * {@code actualTokens, requestId}. The topic is private to the router, read only by its admission step.
 */
public final class AdmissionRecords implements Serializer<Object>, Deserializer<Object> {
    private static final byte REQUEST = 'R';
    private static final byte SETTLEMENT = 'S';

    private final String requestsTopic;
    private final Serializer<InferenceRequest> requestSerializer;
    private final Deserializer<InferenceRequest> requestDeserializer;

    public AdmissionRecords(String requestsTopic, Serializer<InferenceRequest> requestSerializer,
                            Deserializer<InferenceRequest> requestDeserializer) {
        this.requestsTopic = requestsTopic;
        this.requestSerializer = requestSerializer;
        this.requestDeserializer = requestDeserializer;
    }

    @Override
    public byte[] serialize(String topic, Object value) {
        if (value instanceof InferenceRequest request) {
            return withKind(REQUEST, requestSerializer.serialize(requestsTopic, request));
        }
        if (value instanceof QuotaSettlement s) {
            byte[] id = s.requestId().getBytes(StandardCharsets.UTF_8);
            return withKind(SETTLEMENT, ByteBuffer.allocate(Long.BYTES + id.length).putLong(s.actualTokens()).put(id).array());
        }
        throw new IllegalArgumentException("not an admission record: " + (value == null ? "null" : value.getClass().getName()));
    }

    /** A request, or a settlement (whose tenant is the record key). */
    @Override
    public Object deserialize(String topic, byte[] data) {
        if (data == null || data.length == 0) {
            throw new IllegalArgumentException("empty admission record");
        }
        byte[] body = Arrays.copyOfRange(data, 1, data.length);
        return switch (data[0]) {
            case REQUEST -> requestDeserializer.deserialize(requestsTopic, body);
            case SETTLEMENT -> {
                ByteBuffer buffer = ByteBuffer.wrap(body);
                long tokens = buffer.getLong();
                yield new QuotaSettlement(StandardCharsets.UTF_8.decode(buffer).toString(), tokens);
            }
            default -> throw new IllegalArgumentException("unknown admission record kind " + data[0]);
        };
    }

    @Override
    public void configure(java.util.Map<String, ?> configs, boolean isKey) {
    }

    @Override
    public void close() {
    }

    private static byte[] withKind(byte kind, byte[] body) {
        byte[] out = new byte[body.length + 1];
        out[0] = kind;
        System.arraycopy(body, 0, out, 1, body.length);
        return out;
    }
}
