package io.kvroute.ingress.batch;

/**
 * What {@code submit} records for each request it sent, so {@code collect} can find the results
 * (by request id) and render them as the endpoint the line asked for, with its model.
 */
public record ManifestEntry(String requestId, String customId, BatchEndpoint endpoint, String model) {
}
