package io.kvroute.router.topology.internal;

import io.kvroute.schemas.serde.AvroSerde;
import io.kvroute.schemas.serde.WireFormat;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.InferenceRequest;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Writes dispatch records. When the request inside was decoded from a record written with the router's own request
 * schema and has not changed since ({@link RequestWire}), its encoded body is copied into the dispatch record as it
 * came: the same bytes {@link AvroSerde} would write, without encoding the prompt (most of the record) a second time.
 * Otherwise, or with another serde configured, the record is encoded whole.
 */
final class DispatchSerializer implements Serializer<DispatchedRequest> {
    private final Serializer<DispatchedRequest> plain;
    private final AvroSerde<DispatchedRequest> avro;
    /** Per writer schema id of a request record: whether it is the schema the dispatch record nests. */
    private final Map<Integer, Boolean> nestable = new ConcurrentHashMap<>();

    DispatchSerializer(Serializer<DispatchedRequest> plain) {
        this.plain = plain;
        this.avro = plain instanceof AvroSerde<DispatchedRequest> serde && nestsTheRequest(serde.schema()) ? serde : null;
    }

    private static boolean nestsTheRequest(Schema dispatch) {
        return !dispatch.getFields().isEmpty() && dispatch.getFields().get(0).schema().equals(InferenceRequest.getClassSchema());
    }

    @Override
    public byte[] serialize(String topic, DispatchedRequest data) {
        byte[] record = avro == null || data == null ? null : RequestWire.recordOf(data.getRequest());
        if (record == null || !nestable(WireFormat.readSchemaId(ByteBuffer.wrap(record)))) {
            return plain.serialize(topic, data);
        }
        return avro.serializeWithFirstField(topic, data, record, WireFormat.HEADER_SIZE, record.length - WireFormat.HEADER_SIZE);
    }

    private boolean nestable(int writerId) {
        return nestable.computeIfAbsent(writerId, id -> InferenceRequest.getClassSchema().equals(avro.writerSchema(id)));
    }
}
