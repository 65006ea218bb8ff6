package io.kvroute.schemas.registry;

/**
 * A registry client setting is missing or wrong. The message names the key and, for a secret,
 * never the value; a process stops at start-up with it.
 */
public class SchemaRegistryConfigException extends IllegalArgumentException {
    private final String key;
    private final String shownValue;
    private final String problem;

    /** {@code shownValue} is what a message may show of the value: "***" for a secret. */
    public SchemaRegistryConfigException(String key, String shownValue, String problem) {
        super("invalid configuration " + key + " = '" + shownValue + "': " + problem);
        this.key = key;
        this.shownValue = shownValue;
        this.problem = problem;
    }

    public String key() {
        return key;
    }

    public String shownValue() {
        return shownValue;
    }

    public String problem() {
        return problem;
    }
}
