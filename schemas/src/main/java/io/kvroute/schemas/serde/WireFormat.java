package io.kvroute.schemas.serde;

import java.nio.ByteBuffer;
import org.apache.kafka.common.errors.SerializationException;

/**
 * The Confluent wire format: magic byte 0, a 4-byte big-endian schema id, then the Avro binary
 * body. Records written by Confluent's serializer and by {@link AvroSerde} are byte-identical.
 */
public final class WireFormat {
    public static final byte MAGIC_BYTE = 0x0;
    public static final int HEADER_SIZE = 5;

    private WireFormat() {
    }

    /** Reads the header; the buffer is left positioned at the Avro body. */
    public static int readSchemaId(ByteBuffer buffer) {
        if (buffer.remaining() < HEADER_SIZE) {
            throw new SerializationException("truncated record: " + buffer.remaining()
                    + " bytes, shorter than the 5-byte wire-format header");
        }
        byte magic = buffer.get();
        if (magic != MAGIC_BYTE) {
            throw new SerializationException(String.format(
                    "unknown magic byte 0x%02x (expected 0x00): not written by a Confluent-wire-format Avro serializer", magic));
        }
        return buffer.getInt();
    }

    public static void writeHeader(ByteBuffer buffer, int schemaId) {
        buffer.put(MAGIC_BYTE).putInt(schemaId);
    }
}
