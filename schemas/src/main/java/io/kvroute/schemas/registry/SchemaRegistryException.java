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
     * Whether {@code error} comes from the registry rather than the record: a registry that did not
     * answer (wait and retry), or one that refuses this client ({@link #isConfigurationError}: stop),
     * as opposed to one that answered "no such schema" (bad input). Never dead-letter a record for it.
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

    /** Whether {@code error} comes from a registry refusing this client's credentials or permissions (HTTP 401/403). */
    public static boolean isConfigurationError(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof SchemaRegistryAuthException) {
                return true;
            }
        }
        return false;
    }
}
