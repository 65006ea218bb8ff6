package io.kvroute.worker.engine.sim;

/** Stand-in output text for simulated tokens: one word per token, chosen from the request key. */
final class SyntheticText {
    private static final String[] WORDS = {
        " the", " model", " routes", " tokens", " across", " regions", " and", " caches", " prefix",
        " blocks", " while", " batching", " requests", " on", " a", " GPU", " with", " paged", " memory", " again."
    };

    private SyntheticText() {
    }

    static String token(String key, int index) {
        int i = Math.floorMod(key.hashCode() * 31 + index * 7, WORDS.length);
        return WORDS[i];
    }
}
