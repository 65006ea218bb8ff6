package io.kvroute.ingress.client;

/**
 * Receives what a {@link ResponseAssembler} makes of the response events: chunks as soon as they
 * are next in sequence, and exactly one completion per request. When a higher attempt of a request
 * appears, its chunks start again at sequence 0 with the new attempt number: a streaming consumer
 * should discard what it showed of the earlier attempt.
 */
public interface ResponseListener {

    default void onChunk(Chunk chunk) {
    }

    void onCompletion(Completion completion);
}
