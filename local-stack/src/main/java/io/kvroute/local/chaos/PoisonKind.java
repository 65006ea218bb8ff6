package io.kvroute.local.chaos;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Ways a record on the requests topic can be undecodable, each made from the bytes of a valid
 * request (Confluent wire format: magic byte 0, 4-byte schema id, Avro body) so only the named
 * defect differs. The key stays a readable request id, so the router owes both a dead letter and
 * a REJECTED result.
 */
public enum PoisonKind {
    /** Text, not Avro: what a producer with the wrong serializer writes. */
    NOT_AVRO {
        @Override
        public byte[] corrupt(byte[] valid) {
            return "{\"prompt\": \"not avro\", \"max_tokens\": 16}".getBytes(StandardCharsets.UTF_8);
        }
    },
    /** The magic byte is 1 instead of 0. */
    WRONG_MAGIC_BYTE {
        @Override
        public byte[] corrupt(byte[] valid) {
            byte[] bytes = valid.clone();
            bytes[0] = 1;
            return bytes;
        }
    },
    /** A schema id the registry has never issued. */
    UNKNOWN_SCHEMA_ID {
        @Override
        public byte[] corrupt(byte[] valid) {
            byte[] bytes = valid.clone();
            ByteBuffer.wrap(bytes).putInt(1, 2_000_000_000);
            return bytes;
        }
    },
    /** The record cut off half-way through its Avro body. */
    TRUNCATED {
        @Override
        public byte[] corrupt(byte[] valid) {
            return Arrays.copyOf(valid, 5 + (valid.length - 5) / 2);
        }
    };

    public abstract byte[] corrupt(byte[] valid);
}
