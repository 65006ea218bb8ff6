package io.kvroute.ingress.client;

/**
 * Receives what a {@link ResponseAssembler} makes of the response events: chunks as soon as they
 * are next in sequence, and exactly one completion per request. When a higher attempt of a request
 * appears, its chunks start again at sequence 0 with the new attempt number: a streaming consumer
 * should discard what it showed of the earlier attempt. A rejected duplicate submission of a
 * request id is reported apart ({@link #onDuplicateRejected}) and never as a completion.
 */
public interface ResponseListener {

    default void onChunk(Chunk chunk) {
    }

    void onCompletion(Completion completion);

    /**
     * A later submission reused this request id and the router rejected it. Not a result: the
     * request the id belongs to is unaffected and its completion still comes (or has come).
     */
    default void onDuplicateRejected(DuplicateRejection rejection) {
    }
}
