package io.kvroute.platform.config;

/** A configuration value is missing or wrong. The message names the key and the value. */
public class ConfigException extends IllegalArgumentException {
    private final String key;

    public ConfigException(String key, Object value, String problem) {
        super("invalid configuration " + key + " = '" + value + "': " + problem);
        this.key = key;
    }

    public String key() {
        return key;
    }
}
