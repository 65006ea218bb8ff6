package io.kvroute.router.topology.internal;

/**
 * A worker's hand-back of a run its inference server refused for a rate limit, passed from the
 * {@link ResultTracker} (which reads it on the responses topic) to the {@link RoutingProcessor}
 * (which places the request again, or answers it FAILED).
 *
 * @param requestId       the request
 * @param dispatchAttempt the dispatch attempt the run belonged to; a newer one makes the hand-back stale
 * @param workerId        the worker that handed it back, excluded from the next placement
 * @param reason          the worker's reason (the server's answer), for the decision record and a FAILED answer
 */
public record HandBack(String requestId, int dispatchAttempt, String workerId, String reason) {
}
