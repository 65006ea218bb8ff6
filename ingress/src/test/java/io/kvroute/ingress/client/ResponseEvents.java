package io.kvroute.ingress.client;

import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.TerminalResult;
import io.kvroute.schemas.v1.Usage;

/** Builds the response events a worker (or the router) writes, for tests. */
final class ResponseEvents {
    private ResponseEvents() {
    }

    static ResponseEvent chunk(String id, int attempt, int sequence, String text) {
        return ResponseEvent.newBuilder().setRequestId(id).setCustomId("c-" + id).setAttempt(attempt)
                .setSequence(sequence).setTextDelta(text).setProducedAtMs(1_000L + sequence).build();
    }

    static ResponseEvent terminal(String id, int attempt, int sequence, ResponseStatus status) {
        TerminalResult result = TerminalResult.newBuilder()
                .setStatus(status)
                .setFinishReason(status == ResponseStatus.COMPLETED ? "length" : null)
                .setUsage(new Usage(100, sequence, 64))
                .setTtftMs(status == ResponseStatus.COMPLETED ? 42L : null)
                .setWorkerId(status == ResponseStatus.COMPLETED ? "w-" + attempt : null)
                .setRegion(status == ResponseStatus.COMPLETED ? "eu-west" : null)
                .setError(status == ResponseStatus.COMPLETED ? null : "no capacity")
                .build();
        return ResponseEvent.newBuilder().setRequestId(id).setCustomId("c-" + id).setAttempt(attempt)
                .setSequence(sequence).setTerminal(result).setProducedAtMs(2_000_000L).build();
    }

    /** The router's REJECTED answer to a record naming {@code id} under another key (or none), as the router writes it. */
    static ResponseEvent misKeyedRejection(String id) {
        TerminalResult result = TerminalResult.newBuilder()
                .setStatus(ResponseStatus.REJECTED)
                .setFinishReason("rejected")
                .setUsage(new Usage(0, 0, 0))
                .setError("key_mismatch: record key 'k' is not the request id '" + id + "': the key must equal the request id")
                .build();
        return ResponseEvent.newBuilder().setRequestId(id).setAttempt(0).setSequence(0)
                .setTerminal(result).setDuplicate(true).setProducedAtMs(3_000_000L).build();
    }

    /** The router's REJECTED answer to a later submission reusing {@code id}. */
    static ResponseEvent duplicateRejection(String id) {
        TerminalResult result = TerminalResult.newBuilder()
                .setStatus(ResponseStatus.REJECTED)
                .setFinishReason("rejected")
                .setUsage(new Usage(0, 0, 0))
                .setError("duplicate_request_id: duplicate request id")
                .build();
        return ResponseEvent.newBuilder().setRequestId(id).setCustomId("dup-" + id).setAttempt(0).setSequence(0)
                .setTerminal(result).setDuplicate(true).setProducedAtMs(3_000_000L).build();
    }
}
