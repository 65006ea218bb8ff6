package io.kvroute.worker.consumer.internal;

import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.TerminalResult;
import io.kvroute.schemas.v1.Usage;
import io.kvroute.worker.engine.EngineUsage;

/** Builds the chunk, terminal and hand-back {@link ResponseEvent}s of one attempt of a request. */
public final class ResponseEvents {
    public static final String CANCELLED_FINISH_REASON = "cancelled";
    private final String requestId;
    private final String customId;
    private final int attempt;
    private final int retry;
    private final String workerId;
    private final String region;
    private final String tenant;
    private final String model;

    public ResponseEvents(String requestId, String customId, int attempt, String workerId, String region) {
        this(requestId, customId, attempt, 0, workerId, region, null, null);
    }

    private ResponseEvents(String requestId, String customId, int attempt, int retry, String workerId, String region,
                           String tenant, String model) {
        this.requestId = requestId;
        this.customId = customId;
        this.attempt = attempt;
        this.retry = retry;
        this.workerId = workerId;
        this.region = region;
        this.tenant = tenant;
        this.model = model;
    }

    /** These events naming the request's tenant (every event) and model (its terminal), for routing and usage. */
    public ResponseEvents of(String tenant, String model) {
        return new ResponseEvents(requestId, customId, attempt, retry, workerId, region, tenant, model);
    }

    public String requestId() {
        return requestId;
    }

    /** The request's tenant, or null when not known. */
    public String tenant() {
        return tenant;
    }

    /** The run attempt stamped on every event (see {@link io.kvroute.schemas.topics.RunAttempt}). */
    public int attempt() {
        return attempt;
    }

    /** The worker's try within this attempt: 0 first, then one more per retry after a transient failure. */
    public int retry() {
        return retry;
    }

    /** The events of the next try of the same attempt: they outrank this try's. */
    public ResponseEvents nextTry() {
        return new ResponseEvents(requestId, customId, attempt, retry + 1, workerId, region, tenant, model);
    }

    public ResponseEvent chunk(int sequence, String textDelta, long nowMs) {
        return base(sequence, nowMs).setTextDelta(textDelta).build();
    }

    public ResponseEvent completed(int sequence, String finishReason, EngineUsage usage, long ttftMs, long nowMs) {
        return terminal(sequence, ResponseStatus.COMPLETED, finishReason, usage, ttftMs, null, nowMs);
    }

    public ResponseEvent failed(int sequence, String error, EngineUsage usage, long nowMs) {
        return terminal(sequence, ResponseStatus.FAILED, null, usage, null, error, nowMs);
    }

    /** The server refused the request itself; another attempt cannot succeed. */
    public ResponseEvent rejected(int sequence, String error, EngineUsage usage, long nowMs) {
        return terminal(sequence, ResponseStatus.REJECTED, null, usage, null, error, nowMs);
    }

    public ResponseEvent expired(long nowMs) {
        return terminal(0, ResponseStatus.EXPIRED, null, new EngineUsage(0, 0, 0), null, "deadline passed before the request ran", nowMs);
    }

    /** The request was cancelled (finish reason "cancelled"); {@code usage} is what it used until then. */
    public ResponseEvent cancelled(int sequence, String reason, EngineUsage usage, long nowMs) {
        return terminal(sequence, ResponseStatus.CANCELLED, CANCELLED_FINISH_REASON, usage, null, reason, nowMs);
    }

    /**
     * Not a result: the run ends here because the server refused it for a rate limit, and the
     * router places the request again elsewhere (see the schema's {@code handedBack}).
     */
    public ResponseEvent handedBack(int sequence, String reason, long nowMs) {
        return base(sequence, nowMs).setHandedBack(reason).build();
    }

    private ResponseEvent terminal(int sequence, ResponseStatus status, String finishReason, EngineUsage usage,
                                   Long ttftMs, String error, long nowMs) {
        TerminalResult result = TerminalResult.newBuilder()
                .setStatus(status)
                .setFinishReason(finishReason)
                .setUsage(new Usage(usage.promptTokens(), usage.completionTokens(), usage.cachedTokens()))
                .setTtftMs(ttftMs)
                .setWorkerId(workerId)
                .setRegion(region)
                .setError(error)
                .setDecodeMs(usage.timing().decodeMs() >= 0 ? usage.timing().decodeMs() : null)
                .setQueuedAheadTokens(usage.timing().queuedAheadTokens() >= 0 ? usage.timing().queuedAheadTokens() : null)
                .setPromptTokensDuringDecode(usage.timing().promptTokensDuringDecode() >= 0
                        ? usage.timing().promptTokensDuringDecode() : null)
                .setModel(model)
                .build();
        return base(sequence, nowMs).setTerminal(result).build();
    }

    private ResponseEvent.Builder base(int sequence, long nowMs) {
        return ResponseEvent.newBuilder()
                .setRequestId(requestId)
                .setCustomId(customId)
                .setAttempt(attempt)
                .setRetry(retry)
                .setSequence(sequence)
                .setTenant(tenant)
                .setProducedAtMs(nowMs);
    }
}
