package io.kvroute.router.routing;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * One String instance per model, region and pool name, so that the checks each candidate of each decision makes (does
 * the worker serve the request's model, is its region known and allowed) compare references ({@link String#equals}'s
 * first test) and reuse the instance's cached hash, instead of hashing and comparing characters: every request and every
 * telemetry record decodes new Strings. Names are added from telemetry and settings ({@link #canonical}); a request's
 * names, which come from users, are only looked up ({@link #known}), so users cannot fill the table. Bounded all the
 * same: a name past the first {@value #MAX_NAMES} is returned as it is, and then compared by its characters. Thread-safe.
 */
final class CanonicalNames {
    static final int MAX_NAMES = 1_024;
    private static final ConcurrentHashMap<String, String> NAMES = new ConcurrentHashMap<>();

    private CanonicalNames() {
    }

    /** The instance kept for {@code name}, or {@code name} itself if none is kept: never adds one. */
    static String known(String name) {
        if (name == null) {
            return null;
        }
        String known = NAMES.get(name);
        return known != null ? known : name;
    }

    /** An immutable copy of {@code names} holding the instances kept for them, where there are; never adds one. */
    static Set<String> known(Set<String> names) {
        return copyOf(names, CanonicalNames::known);
    }

    /** The instance kept for {@code name}, keeping {@code name} if none is and the table has room. */
    static String canonical(String name) {
        if (name == null) {
            return null;
        }
        String known = NAMES.get(name);
        if (known != null || NAMES.size() >= MAX_NAMES) {
            return known != null ? known : name;
        }
        String first = NAMES.putIfAbsent(name, name);
        return first != null ? first : name;
    }

    /** An immutable copy of {@code names} holding the canonical instances. */
    static Set<String> canonical(Set<String> names) {
        return copyOf(names, CanonicalNames::canonical);
    }

    private static Set<String> copyOf(Set<String> names, UnaryOperator<String> instance) {
        if (names.size() == 1) {
            return Set.of(instance.apply(names.iterator().next()));
        }
        String[] copy = new String[names.size()];
        int i = 0;
        for (String name : names) {
            copy[i++] = instance.apply(name);
        }
        return Set.of(copy);
    }
}
