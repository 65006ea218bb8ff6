package io.kvroute.schemas.registry;

/** A registry call failed: not reachable, refused the schema, or answered something unexpected. */
public class SchemaRegistryException extends RuntimeException {
    public SchemaRegistryException(String message) {
        super(message);
    }

    public SchemaRegistryException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * Whether {@code error} comes from a registry that did not answer (wait and retry), as
     * opposed to one that answered "no such schema" (bad input).
     */
    public static boolean isOutage(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof UnknownSchemaIdException) {
                return false;
            }
            if (t instanceof SchemaRegistryException) {
                return true;
            }
        }
        return false;
    }
}
