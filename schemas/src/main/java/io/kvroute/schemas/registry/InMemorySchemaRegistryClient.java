package io.kvroute.schemas.registry;

import java.util.HashMap;
import java.util.Map;
import org.apache.avro.Schema;

/**
 * A registry held in memory, for unit and topology tests only (URL {@code mock://name}).
 * Integration tests and the local stack use a real registry over HTTP.
 */
public final class InMemorySchemaRegistryClient implements SchemaRegistryClient {
    private final Map<Integer, Schema> byId = new HashMap<>();
    private final Map<String, Integer> ids = new HashMap<>();

    @Override
    public synchronized int register(String subject, Schema schema) {
        return ids.computeIfAbsent(subject + '\n' + schema, k -> {
            int id = byId.size() + 1;
            byId.put(id, schema);
            return id;
        });
    }

    @Override
    public synchronized int lookup(String subject, Schema schema) {
        Integer id = ids.get(subject + '\n' + schema);
        if (id == null) {
            throw new SchemaRegistryException("schema not registered under subject '" + subject + "'");
        }
        return id;
    }

    @Override
    public synchronized Schema getById(int id) {
        Schema schema = byId.get(id);
        if (schema == null) {
            throw new UnknownSchemaIdException(id);
        }
        return schema;
    }
}
