package io.kvroute.platform.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;

/**
 * Layered key/value settings: defaults, then a properties file, then environment variables
 * ({@code KVROUTE_ROUTER_POLICY} for {@code router.policy}), then explicit overrides (CLI). Each
 * layer replaces the one before. Typed getters validate and throw {@link ConfigException}
 * naming the key and the bad value, so a bad setting fails at start-up.
 */
public final class Settings {
    private final Map<String, String> values;

    private Settings(Map<String, String> values) {
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    public static Settings of(Map<String, String> values) {
        return new Settings(values);
    }

    public static Builder builder() {
        return new Builder();
    }

    public static final class Builder {
        private final Map<String, String> values = new LinkedHashMap<>();

        public Builder defaults(Map<String, String> defaults) {
            values.putAll(defaults);
            return this;
        }

        public Builder file(Path path) {
            if (path == null) {
                return this;
            }
            Properties properties = new Properties();
            try (Reader reader = Files.newBufferedReader(path)) {
                properties.load(reader);
            } catch (IOException e) {
                throw new ConfigException("config.file", path, "cannot be read: " + e.getMessage());
            }
            properties.stringPropertyNames().forEach(k -> values.put(k, properties.getProperty(k).trim()));
            return this;
        }

        /** Reads variables named {@code KVROUTE_<KEY>} for keys under the given prefixes. */
        public Builder environment(Map<String, String> env, String... keyPrefixes) {
            env.forEach((name, value) -> {
                if (!name.startsWith("KVROUTE_")) {
                    return;
                }
                String key = name.substring("KVROUTE_".length()).toLowerCase(Locale.ROOT).replace('_', '.');
                if (Arrays.stream(keyPrefixes).anyMatch(key::startsWith)) {
                    values.put(key, value);
                }
            });
            return this;
        }

        public Builder overrides(Map<String, String> overrides) {
            overrides.forEach((k, v) -> {
                if (v != null) {
                    values.put(k, v);
                }
            });
            return this;
        }

        public Builder set(String key, String value) {
            values.put(key, value);
            return this;
        }

        public Settings build() {
            return new Settings(values);
        }
    }

    public Map<String, String> asMap() {
        return values;
    }

    public boolean has(String key) {
        String v = values.get(key);
        return v != null && !v.isBlank();
    }

    public String string(String key) {
        String value = values.get(key);
        if (value == null || value.isBlank()) {
            throw new ConfigException(key, value == null ? "" : value, "is required");
        }
        return value.trim();
    }

    public String string(String key, String fallback) {
        return has(key) ? values.get(key).trim() : fallback;
    }

    public int intValue(String key, int min, int max) {
        String raw = string(key);
        int value;
        try {
            value = Integer.parseInt(raw);
        } catch (NumberFormatException e) {
            throw new ConfigException(key, raw, "is not an integer");
        }
        if (value < min || value > max) {
            throw new ConfigException(key, raw, "must be between " + min + " and " + max);
        }
        return value;
    }

    public long longValue(String key, long min, long max) {
        String raw = string(key);
        long value;
        try {
            value = Long.parseLong(raw);
        } catch (NumberFormatException e) {
            throw new ConfigException(key, raw, "is not an integer");
        }
        if (value < min || value > max) {
            throw new ConfigException(key, raw, "must be between " + min + " and " + max);
        }
        return value;
    }

    public double doubleValue(String key, double min, double max) {
        String raw = string(key);
        double value;
        try {
            value = Double.parseDouble(raw);
        } catch (NumberFormatException e) {
            throw new ConfigException(key, raw, "is not a number");
        }
        if (!(value >= min && value <= max)) {
            throw new ConfigException(key, raw, "must be between " + min + " and " + max);
        }
        return value;
    }

    public boolean bool(String key) {
        String raw = string(key);
        if (raw.equalsIgnoreCase("true")) {
            return true;
        }
        if (raw.equalsIgnoreCase("false")) {
            return false;
        }
        throw new ConfigException(key, raw, "must be true or false");
    }

    public String oneOf(String key, List<String> allowed) {
        String raw = string(key);
        if (!allowed.contains(raw)) {
            throw new ConfigException(key, raw, "must be one of " + allowed);
        }
        return raw;
    }

    public List<String> list(String key) {
        if (!has(key)) {
            return List.of();
        }
        return Arrays.stream(values.get(key).split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    public String matching(String key, Predicate<String> valid, String rule) {
        String raw = string(key);
        if (!valid.test(raw)) {
            throw new ConfigException(key, raw, rule);
        }
        return raw;
    }

    /** Keys under {@code prefix}, with the prefix removed: Kafka client settings pass through this way. */
    public Map<String, Object> withPrefix(String prefix) {
        Map<String, Object> out = new HashMap<>();
        values.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                out.put(k.substring(prefix.length()), v);
            }
        });
        return out;
    }

    /**
     * Fails on a key under {@code prefix} that {@code keysHolder} does not declare as a public
     * String constant: a misspelt setting must not silently run with the default.
     */
    public void requireKnownKeys(String prefix, Class<?> keysHolder) {
        java.util.Set<String> known = new java.util.TreeSet<>();
        for (java.lang.reflect.Field field : keysHolder.getFields()) {
            if (java.lang.reflect.Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                try {
                    Object value = field.get(null);
                    if (value instanceof String key && key.startsWith(prefix)) {
                        known.add(key);
                    }
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        values.forEach((key, value) -> {
            if (key.startsWith(prefix) && !known.contains(key)) {
                throw new ConfigException(key, value, "is not a known setting; the " + prefix + "* settings are " + known);
            }
        });
    }
}
