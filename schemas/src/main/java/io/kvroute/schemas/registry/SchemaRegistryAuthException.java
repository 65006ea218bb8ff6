package io.kvroute.schemas.registry;

/**
 * The registry answered 401 or 403: it refuses this client's credentials or permissions. That is a
 * configuration error, not an outage: retrying will not fix it, so a process stops and says so.
 * Like an outage it is not the record's fault, so {@link #isOutage} still holds for it: a record is
 * never dead-lettered for it.
 */
public class SchemaRegistryAuthException extends SchemaRegistryException {
    private final int status;

    public SchemaRegistryAuthException(String registry, int status, String what) {
        super("schema registry at " + registry + " refused " + what + ": HTTP " + status
                + (status == 401 ? " (not authenticated)" : " (not permitted)")
                + "; a configuration error, not an outage: check the registry credentials (basic.auth.*, bearer.auth.*, also with the schema.registry. prefix) and the registry's permissions");
        this.status = status;
    }

    /** 401 or 403. */
    public int status() {
        return status;
    }
}
