package io.kvroute.platform.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The definitions of one component's settings, in the manner of Kafka's {@code ConfigDef}: for each
 * key its type, valid values, default and a one-line description. A config class reads its
 * numeric and enumerated values through these definitions, so the range a reader is told is the
 * range that is enforced, and its {@link #defaults()} map is the lowest layer of its
 * {@link Settings}; {@link #markdownTable()} renders the reference that {@code docs/settings.md}
 * is generated from.
 */
public final class SettingDefs {
    /** A value's type as the reference shows it. */
    public enum Type { STRING, INT, LONG, DOUBLE, LIST, PASSWORD }

    /**
     * One setting.
     *
     * @param key          the key, as written in a properties file or as {@code key=value}
     * @param type         its type
     * @param min          the least numeric value accepted, or null
     * @param max          the greatest numeric value accepted, or null
     * @param allowed      the only values accepted, or empty for any
     * @param validValues  valid values in words when neither a range nor a list says it, or null
     * @param defaultValue the default as it enters the settings, or null when there is none to layer
     * @param shownDefault what the reference shows as the default when it is worked out at start-up, or null
     * @param description  what it does, one line
     */
    public record SettingDef(String key, Type type, Number min, Number max, List<String> allowed, String validValues,
                             String defaultValue, String shownDefault, String description) {
        public SettingDef {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(type, "type");
            allowed = List.copyOf(allowed);
            if (description == null || description.isBlank()) {
                throw new IllegalArgumentException("setting " + key + " needs a description");
            }
        }

        /** What the reference shows in its "valid values" column. */
        public String validValuesText() {
            if (!allowed.isEmpty()) {
                return String.join(", ", allowed);
            }
            if (min != null && max != null) {
                return "[" + bound(min) + ", " + bound(max) + "]";
            }
            return validValues == null ? "" : validValues;
        }

        /** What the reference shows in its "default" column. */
        public String defaultText() {
            if (shownDefault != null) {
                return shownDefault;
            }
            if (defaultValue == null) {
                return "(required)";
            }
            return defaultValue.isEmpty() ? "(empty)" : "`" + defaultValue + "`";
        }

        private static String bound(Number n) {
            if (n instanceof Long l && (l == Long.MAX_VALUE || l == Long.MIN_VALUE)) {
                return l == Long.MAX_VALUE ? "Long.MAX" : "Long.MIN";
            }
            if (n instanceof Integer i && i == Integer.MAX_VALUE) {
                return "Integer.MAX";
            }
            return n instanceof Double d && d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString(d.longValue()) : n.toString();
        }
    }

    private final Map<String, SettingDef> defs;

    private SettingDefs(Map<String, SettingDef> defs) {
        this.defs = Collections.unmodifiableMap(new LinkedHashMap<>(defs));
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Every definition, in the order defined. */
    public List<SettingDef> all() {
        return List.copyOf(defs.values());
    }

    public SettingDef get(String key) {
        SettingDef def = defs.get(key);
        if (def == null) {
            throw new IllegalArgumentException("no definition of setting " + key);
        }
        return def;
    }

    public boolean defines(String key) {
        return defs.containsKey(key);
    }

    /** Each key that has a default to layer under the given settings, with that default, in the order defined. */
    public Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        defs.values().forEach(def -> {
            if (def.defaultValue() != null) {
                d.put(def.key(), def.defaultValue());
            }
        });
        return Collections.unmodifiableMap(d);
    }

    /** Reads {@code key} as an int within its defined range (the message names key and value when it is not). */
    public int intValue(Settings s, String key) {
        SettingDef def = get(key);
        return s.intValue(key, def.min().intValue(), def.max().intValue());
    }

    public long longValue(Settings s, String key) {
        SettingDef def = get(key);
        return s.longValue(key, def.min().longValue(), def.max().longValue());
    }

    public double doubleValue(Settings s, String key) {
        SettingDef def = get(key);
        return s.doubleValue(key, def.min().doubleValue(), def.max().doubleValue());
    }

    /** Reads {@code key} as one of its defined values. */
    public String oneOf(Settings s, String key) {
        return s.oneOf(key, get(key).allowed());
    }

    /** The reference as a markdown table: key, type, valid values, default, description. */
    public String markdownTable() {
        StringBuilder out = new StringBuilder();
        out.append("| key | type | valid values | default | description |\n");
        out.append("|---|---|---|---|---|\n");
        for (SettingDef def : defs.values()) {
            out.append("| `").append(def.key()).append("` | ")
                    .append(def.type().name().toLowerCase(java.util.Locale.ROOT)).append(" | ")
                    .append(cell(def.validValuesText())).append(" | ")
                    .append(cell(def.defaultText())).append(" | ")
                    .append(cell(def.description())).append(" |\n");
        }
        return out.toString();
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }

    /** Defines settings in the order the reference lists them. */
    public static final class Builder {
        private final Map<String, SettingDef> defs = new LinkedHashMap<>();

        public Builder define(SettingDef def) {
            if (defs.putIfAbsent(def.key(), def) != null) {
                throw new IllegalArgumentException("setting " + def.key() + " defined twice");
            }
            return this;
        }

        /** Every definition of {@code others}, in their order: settings several components share. */
        public Builder defineAll(SettingDefs others) {
            others.all().forEach(this::define);
            return this;
        }

        /** A string; {@code defaultValue} null when it has none to layer, {@code validValues} in words or null. */
        public Builder string(String key, String defaultValue, String validValues, String description) {
            return define(new SettingDef(key, Type.STRING, null, null, List.of(), validValues, defaultValue, null, description));
        }

        /** A string whose default is worked out at start-up: {@code shownDefault} says how. */
        public Builder stringWorkedOut(String key, String shownDefault, String validValues, String description) {
            return define(new SettingDef(key, Type.STRING, null, null, List.of(), validValues, null, shownDefault, description));
        }

        /** A secret: never shown, no default. */
        public Builder password(String key, String description) {
            return define(new SettingDef(key, Type.PASSWORD, null, null, List.of(), null, null, "(none)", description));
        }

        public Builder list(String key, String defaultValue, String validValues, String description) {
            return define(new SettingDef(key, Type.LIST, null, null, List.of(), validValues, defaultValue, null, description));
        }

        public Builder oneOf(String key, List<String> allowed, String defaultValue, String description) {
            return define(new SettingDef(key, Type.STRING, null, null, allowed, null, defaultValue, null, description));
        }

        public Builder intRange(String key, int min, int max, Integer defaultValue, String description) {
            return define(new SettingDef(key, Type.INT, min, max, List.of(), null,
                    defaultValue == null ? null : Integer.toString(defaultValue), null, description));
        }

        public Builder longRange(String key, long min, long max, Long defaultValue, String description) {
            return define(new SettingDef(key, Type.LONG, min, max, List.of(), null,
                    defaultValue == null ? null : Long.toString(defaultValue), null, description));
        }

        public Builder doubleRange(String key, double min, double max, double defaultValue, String description) {
            return define(new SettingDef(key, Type.DOUBLE, min, max, List.of(), null, Double.toString(defaultValue), null, description));
        }

        public SettingDefs build() {
            return new SettingDefs(defs);
        }
    }
}
