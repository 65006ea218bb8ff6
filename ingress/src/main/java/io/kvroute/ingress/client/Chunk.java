package io.kvroute.ingress.client;

/** A piece of generated text of one attempt of a request, delivered in sequence order. */
public record Chunk(String requestId, int attempt, int sequence, String text) {
}
