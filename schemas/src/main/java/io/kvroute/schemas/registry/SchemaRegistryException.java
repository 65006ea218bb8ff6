package io.kvroute.schemas.registry;

/** A registry call failed: not reachable, refused the schema, or answered something unexpected. */
public class SchemaRegistryException extends RuntimeException {
    public SchemaRegistryException(String message) {
        super(message);
    }

    public SchemaRegistryException(String message, Throwable cause) {
        super(message, cause);
    }
}
