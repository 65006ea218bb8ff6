package io.kvroute.worker.engine;

/** Token counts of one finished request, as reported in its terminal event. */
public record EngineUsage(int promptTokens, int completionTokens, int cachedTokens) {
}
