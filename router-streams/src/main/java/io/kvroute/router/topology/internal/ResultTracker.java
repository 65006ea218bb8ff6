package io.kvroute.router.topology.internal;

import io.kvroute.router.routing.EngineSpeeds;
import io.kvroute.router.routing.OutputLengths;
import io.kvroute.router.routing.WorkerSnapshot;
import io.kvroute.schemas.topics.ResponseHeaders;
import io.kvroute.schemas.topics.RunAttempt;
import io.kvroute.schemas.v1.DispatchedRequest;
import io.kvroute.schemas.v1.ResponseEvent;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.TerminalResult;
import io.kvroute.schemas.v1.Usage;
import java.util.function.Function;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forgets a dispatched request once its result is on the responses topic: removes it from the
 * {@value TopologyNames#IN_FLIGHT_STORE} store, so only requests still waiting or running are
 * candidates for re-placement. The responses topic is keyed and partitioned like the requests
 * topic, so a request's result reaches the task that dispatched it. A terminal of an attempt
 * older than the one in the store (a run that was re-placed meanwhile) does not count; events
 * that do not decode are skipped (they are for readers, not for the router).
 *
 * <p>A worker's hand-back of a run its server refused for a rate limit (an event with
 * {@code handedBack} set, for the dispatch attempt in the store) goes to the {@link RoutingProcessor}
 * as a {@link HandBack}, which places the request again or answers it.
 *
 * <p>A terminal also corrects the fair queue's charge for the request by its actual usage
 * ({@link FairShares}), when the request was served from the queue by this task, and, when
 * tenants have quotas, sends the usage to the tenant's admission task ({@link QuotaSettlement}).
 * A completed run's timing, with its worker's telemetry, teaches the router its pool's engine
 * speed ({@link EngineSpeeds}).
 */
public final class ResultTracker implements Processor<String, byte[], Object, Object> {
    private static final Logger LOG = LoggerFactory.getLogger(ResultTracker.class);

    private final String responsesTopic;
    private final Deserializer<ResponseEvent> deserializer;
    private final FairShares fairShares;
    private final boolean settleQuotas;
    private final UsageRecorder usage;
    /** What a tenant's responses topic starts with: {@code <responses topic>.} */
    private final String tenantResponsesPrefix;
    private final OutputLengths outputLengths;
    private final EngineSpeeds engineSpeeds;
    private final Function<String, WorkerSnapshot> workers;
    private ProcessorContext<Object, Object> context;
    private KeyValueStore<String, DispatchedRequest> inFlight;

    /**
     * @param settleQuotas  whether requests come through admission: then a result settles its quota reservation
     * @param outputLengths where a completed request's answer length goes (the router's, for its batch-slot waits)
     * @param engineSpeeds  where a completed run's timing goes (the router's, learning each pool's speed)
     * @param workers       each worker's latest telemetry, as the router's fleet view holds it decoded (null if none)
     */
    /** Where each request's use goes once its result ends its dispatch: tenant, model, region and tokens. */
    @FunctionalInterface
    public interface UsageRecorder {
        void record(String tenant, String model, String region, long promptTokens, long cachedTokens, long completionTokens);

        UsageRecorder NONE = (tenant, model, region, prompt, cached, completion) -> { };
    }

    public ResultTracker(String responsesTopic, Deserializer<ResponseEvent> deserializer, FairShares fairShares,
                         boolean settleQuotas, OutputLengths outputLengths, EngineSpeeds engineSpeeds,
                         Function<String, WorkerSnapshot> workers) {
        this(responsesTopic, deserializer, fairShares, settleQuotas, outputLengths, engineSpeeds, workers, UsageRecorder.NONE);
    }

    /** As above, telling {@code usage} each request's tokens once, when its result ends the dispatch the router waits on. */
    public ResultTracker(String responsesTopic, Deserializer<ResponseEvent> deserializer, FairShares fairShares,
                         boolean settleQuotas, OutputLengths outputLengths, EngineSpeeds engineSpeeds,
                         Function<String, WorkerSnapshot> workers, UsageRecorder usage) {
        this.usage = usage;
        this.settleQuotas = settleQuotas;
        this.outputLengths = outputLengths;
        this.engineSpeeds = engineSpeeds;
        this.workers = workers;
        this.responsesTopic = responsesTopic;
        this.tenantResponsesPrefix = responsesTopic + ".";
        this.deserializer = deserializer;
        this.fairShares = fairShares;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
        inFlight = context.getStateStore(TopologyNames.IN_FLIGHT_STORE);
    }

    @Override
    public void process(Record<String, byte[]> record) {
        if (record.key() == null || record.value() == null || isMarkedChunk(record)) {
            return;
        }
        ResponseEvent event;
        try {
            event = deserializer.deserialize(responsesTopic, record.value());
        } catch (RuntimeException e) {
            LOG.debug("skipped an undecodable response event for {}: {}", record.key(), e.toString());
            return;
        }
        if (event != null && event.getHandedBack() != null) {
            handBack(record, event);
            return;
        }
        if (event == null || event.getTerminal() == null || event.getDuplicate()) {
            return;
        }
        DispatchedRequest dispatched = inFlight.get(record.key());
        if (dispatched != null && endsDispatchAttempt(event.getAttempt(), dispatched.getAttempt()) && isOfItsTenant(dispatched)) {
            inFlight.delete(record.key());
            Usage used = event.getTerminal().getUsage();
            long prompt = used == null ? 0 : used.getPromptTokens();
            long output = used == null ? 0 : used.getCompletionTokens();
            fairShares.settle(context.taskId(), record.key(), prompt, output);
            usage.record(Conversions.nullToEmpty(dispatched.getRequest().getTenant()), Conversions.nullToEmpty(dispatched.getRequest().getModel()),
                    dispatched.getRegion(), prompt, used == null ? 0 : used.getCachedTokens(), output);
            if (event.getTerminal().getStatus() == ResponseStatus.COMPLETED) {
                outputLengths.completed(output);
                learnSpeed(event.getTerminal());
            }
            if (settleQuotas) {
                String tenant = Conversions.nullToEmpty(dispatched.getRequest().getTenant());
                context.forward(new Record<Object, Object>(tenant, new QuotaSettlement(record.key(), prompt + output),
                        record.timestamp(), new RecordHeaders()), TopologyNames.ADMISSION_SETTLE_SINK);
            }
        }
    }

    /**
     * Whether the result was read where the dispatched request's answers go: on a tenant's responses topic (topics per
     * tenant) only a result for that tenant's request counts. The router answers a record that names another tenant's
     * request id on its sender's topic; that answer must not end the other tenant's request.
     */
    private boolean isOfItsTenant(DispatchedRequest dispatched) {
        String topic = context.recordMetadata().map(m -> m.topic()).orElse(responsesTopic);
        return !topic.startsWith(tenantResponsesPrefix)
                || topic.substring(tenantResponsesPrefix.length()).equals(dispatched.getRequest().getTenant());
    }

    /**
     * The run's timing, with what its worker's telemetry says of it now, teaches the router the worker's pool's speed.
     * The telemetry is the fleet view's, decoded once on arrival: no decode per result.
     */
    private void learnSpeed(TerminalResult result) {
        if (result.getTtftMs() == null || result.getWorkerId() == null || result.getUsage() == null) {
            return;
        }
        WorkerSnapshot worker = workers.apply(result.getWorkerId());
        if (worker != null) {
            engineSpeeds.observe(Conversions.toFinishedRun(result, worker));
        }
    }

    private void handBack(Record<String, byte[]> record, ResponseEvent event) {
        DispatchedRequest dispatched = inFlight.get(record.key());
        int attempt = RunAttempt.dispatchAttemptOf(event.getAttempt());
        if (dispatched == null || attempt != dispatched.getAttempt() || !isOfItsTenant(dispatched)) {
            LOG.debug("ignored a stale hand-back of {} (attempt {})", record.key(), attempt);
            return;
        }
        context.forward(new Record<Object, Object>(record.key(),
                new HandBack(record.key(), attempt, dispatched.getWorkerId().toString(), event.getHandedBack().toString()),
                record.timestamp(), new RecordHeaders()), TopologyNames.ROUTER);
    }

    /**
     * A worker's run attempt carries its dispatch attempt in the high 16 bits; the router's own
     * terminals (REJECTED, EXPIRED, CANCELLED before any run) have none there, or the dispatch
     * attempt they answer.
     */
    static boolean endsDispatchAttempt(int terminalAttempt, int dispatchAttempt) {
        int dispatchPart = RunAttempt.dispatchAttemptOf(terminalAttempt);
        return dispatchPart == 0 || dispatchPart >= dispatchAttempt;
    }

    /** Token chunks, the bulk of the topic, say so in a header: skipped without decoding. */
    private static boolean isMarkedChunk(Record<String, byte[]> record) {
        return ResponseHeaders.isChunk(record.headers());
    }
}
