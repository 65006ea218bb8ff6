package io.kvroute.ingress.batch;

import io.kvroute.ingress.client.SubmitRequest;

/** One line of a batch input file: a request ready to submit, or the reason it cannot be. */
public sealed interface BatchLine {
    int lineNumber();

    record Parsed(int lineNumber, String customId, BatchEndpoint endpoint, SubmitRequest request) implements BatchLine {
    }

    record Malformed(int lineNumber, String reason) implements BatchLine {
        @Override
        public String toString() {
            return "line " + lineNumber + ": " + reason;
        }
    }
}
