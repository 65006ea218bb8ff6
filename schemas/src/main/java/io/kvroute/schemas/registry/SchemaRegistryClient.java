package io.kvroute.schemas.registry;

import org.apache.avro.Schema;

/**
 * The part of the Confluent Schema Registry REST API that a serde needs. Implementations cache:
 * a schema id never changes meaning, so lookups by id are fetched once.
 */
public interface SchemaRegistryClient extends AutoCloseable {

    /** Registers {@code schema} under {@code subject} (idempotent) and returns its global id. */
    int register(String subject, Schema schema);

    /** Returns the id of {@code schema} if it is already registered under {@code subject}. */
    int lookup(String subject, Schema schema);

    /** Returns the schema with global id {@code id}; throws {@link UnknownSchemaIdException} if none. */
    Schema getById(int id);

    @Override
    default void close() {
    }
}
