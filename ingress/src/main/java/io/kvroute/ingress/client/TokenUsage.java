package io.kvroute.ingress.client;

/** Token counts of a finished request; cached tokens are prompt tokens served from the prefix cache. */
public record TokenUsage(int promptTokens, int completionTokens, int cachedTokens) {
    public static final TokenUsage NONE = new TokenUsage(0, 0, 0);

    public int totalTokens() {
        return promptTokens + completionTokens;
    }
}
