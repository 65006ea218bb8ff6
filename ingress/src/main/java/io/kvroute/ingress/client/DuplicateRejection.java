package io.kvroute.ingress.client;

/**
 * The router's answer to a later submission that reused a request id it had already accepted
 * (a response event with {@code duplicate = true}), or to a record whose key was not its request
 * id (reason {@code key_mismatch}: whoever wrote it may not own the id). It belongs to that
 * submission, not to the request the id names: that request keeps running and still gets its one
 * {@link Completion}. {@code customId} is the duplicate's own, and may be null.
 */
public record DuplicateRejection(String requestId, String customId, String reason, long rejectedAtMs) {
}
