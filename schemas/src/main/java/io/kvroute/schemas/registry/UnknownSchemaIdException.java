package io.kvroute.schemas.registry;

/** The registry has no schema with the id a record claims to be written with. */
public class UnknownSchemaIdException extends SchemaRegistryException {
    private final int schemaId;

    public UnknownSchemaIdException(int schemaId) {
        super("unknown schema id " + schemaId + ": the registry has no schema with this id");
        this.schemaId = schemaId;
    }

    public int schemaId() {
        return schemaId;
    }
}
