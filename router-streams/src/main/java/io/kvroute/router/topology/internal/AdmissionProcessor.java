package io.kvroute.router.topology.internal;

import io.kvroute.router.admission.Rejection;
import io.kvroute.router.metrics.RouterMetrics;
import io.kvroute.router.routing.quota.QuotaDecision;
import io.kvroute.router.routing.quota.QuotaLimits;
import io.kvroute.router.routing.quota.TenantQuotas;
import io.kvroute.schemas.registry.SchemaRegistryException;
import io.kvroute.schemas.v1.DecisionOutcome;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.ResponseStatus;
import io.kvroute.schemas.v1.RoutingDecision;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tenant quotas (requests and tokens per minute, {@link TenantQuotas}) between intake and routing,
 * on the router's admission topic, which is keyed by tenant: every request of a tenant, and every
 * {@link QuotaSettlement} of one, reaches the one task that owns the tenant's partition, however
 * many router instances share the work. An admitted request goes on to routing (the admitted
 * topic, keyed by request id again); its reservation (prompt + max tokens) is corrected by the
 * tokens actually used when its result arrives, or returned whole when the router answers it
 * without running it.
 *
 * <p>A request over quota is, by its tenant's setting, REJECTED with the reason or made to WAIT:
 * kept in the persistent {@value TopologyNames#QUOTA_WAITING_STORE} store (so a restart or a
 * rebalance loses none) and checked again when the quota should have room, backing off from
 * {@code checkMs} to {@value #MAX_BACKOFF_MS} ms between checks that find none, until it is admitted,
 * its deadline passes (EXPIRED) or it has waited {@code maxWaitMs} (REJECTED). A tenant's waiting
 * requests are admitted in arrival order, and a newcomer of a tenant that has waiting ones waits
 * behind them. Every WAIT, REJECT and EXPIRED has a decision on {@code kvroute.decisions} (reason
 * {@code "over quota: ..."}) and counts in {@link RouterMetrics#REQUESTS_THROTTLED}.
 *
 * <p>The buckets' levels and the open reservations are saved in changelogged stores
 * ({@value TopologyNames#QUOTA_LEVELS_STORE}, {@value TopologyNames#QUOTA_RESERVATIONS_STORE})
 * whenever a request is admitted or settled, and read back when the task starts: when a tenant's
 * partition moves to another instance (scale-out, failover) its quota moves with it, and a
 * settlement of a request admitted before the move still corrects it.
 */
public final class AdmissionProcessor implements Processor<String, Object, Object, Object> {
    static final long MAX_BACKOFF_MS = 5_000;
    private static final Logger LOG = LoggerFactory.getLogger(AdmissionProcessor.class);

    private final Map<String, QuotaLimits> limits;
    private final QuotaLimits defaults;
    private final String policy;
    private final RouterMetrics metrics;
    private final long checkMs;
    private final long maxWaitMs;
    private final Map<String, ArrayDeque<Waiter>> waitingByTenant = new HashMap<>();
    private TenantQuotas quotas;
    private ProcessorContext<Object, Object> context;
    private KeyValueStore<String, InferenceRequest> waiting;
    private KeyValueStore<String, String> savedLevels;
    private KeyValueStore<String, String> savedReservations;
    private Cancellable check;
    private long nextSequence;
    private long waitingCount;

    public AdmissionProcessor(Map<String, QuotaLimits> limits, QuotaLimits defaults, String policy, RouterMetrics metrics,
                              long checkMs, long maxWaitMs) {
        this.limits = Map.copyOf(limits);
        this.defaults = defaults;
        this.policy = policy;
        this.metrics = metrics;
        this.checkMs = checkMs;
        this.maxWaitMs = maxWaitMs;
    }

    @Override
    public void init(ProcessorContext<Object, Object> context) {
        this.context = context;
        this.quotas = new TenantQuotas(limits, defaults);
        this.waiting = context.getStateStore(TopologyNames.QUOTA_WAITING_STORE);
        this.savedLevels = context.getStateStore(TopologyNames.QUOTA_LEVELS_STORE);
        this.savedReservations = context.getStateStore(TopologyNames.QUOTA_RESERVATIONS_STORE);
        restoreQuotas();
        long now = context.currentSystemTimeMs();
        try (KeyValueIterator<String, InferenceRequest> it = waiting.all()) {
            while (it.hasNext()) {
                KeyValue<String, InferenceRequest> entry = it.next();
                ParkedKey key = ParkedKey.decode(entry.key);
                nextSequence = Math.max(nextSequence, key.sequence() + 1);
                Waiter waiter = new Waiter(entry.key, entry.value, key.parkedAtMs());
                waiter.retryAtMs = now;
                queueOf(entry.value).add(waiter);
                waitingCount++;
            }
        }
        metrics.quotaWaitingChanged(waitingCount);
        if (waitingCount > 0) {
            LOG.info("admission task {} resumes with {} requests waiting for quota", context.taskId(), waitingCount);
        }
        check = context.schedule(Duration.ofMillis(checkMs), PunctuationType.WALL_CLOCK_TIME, ts -> checkWaiting());
    }

    /** Reads back the buckets and open reservations this task's tenants had (changelogged stores). */
    private void restoreQuotas() {
        try (KeyValueIterator<String, String> it = savedLevels.all()) {
            while (it.hasNext()) {
                KeyValue<String, String> entry = it.next();
                String[] f = entry.value.split(";");
                quotas.restoreLevels(entry.key, new TenantQuotas.Levels(Double.parseDouble(f[0]), Double.parseDouble(f[1]),
                        Long.parseLong(f[2])));
            }
        }
        try (KeyValueIterator<String, String> it = savedReservations.all()) {
            while (it.hasNext()) {
                KeyValue<String, String> entry = it.next();
                int colon = entry.value.indexOf(':');
                quotas.restoreReservation(entry.key, entry.value.substring(colon + 1), Long.parseLong(entry.value.substring(0, colon)));
            }
        }
    }

    /** Saves what admitting {@code requestId} or settling one of {@code tenant}'s changed. */
    private void saveQuota(String tenant, String requestId) {
        quotas.levels(tenant).ifPresent(l -> savedLevels.put(tenant, l.requests() + ";" + l.tokens() + ";" + l.refilledAtMs()));
        quotas.drainForgotten().forEach(savedLevels::delete); // their buckets are full again: nothing to keep
        OptionalLong reserved = quotas.reservedTokens(requestId);
        if (reserved.isPresent()) {
            savedReservations.put(requestId, reserved.getAsLong() + ":" + tenant);
        } else {
            savedReservations.delete(requestId);
        }
    }

    @Override
    public void process(Record<String, Object> record) {
        long now = context.currentSystemTimeMs();
        if (record.value() instanceof QuotaSettlement settlement) {
            quotas.settle(settlement.requestId(), settlement.actualTokens(), now);
            saveQuota(record.key(), settlement.requestId());
            ArrayDeque<Waiter> queue = waitingByTenant.get(record.key());
            if (queue != null && !queue.isEmpty()) {
                // returned tokens may let the tenant's oldest waiter in before its scheduled check
                queue.peek().retryAtMs = Math.min(queue.peek().retryAtMs, now);
            }
            return;
        }
        InferenceRequest request = (InferenceRequest) record.value();
        try {
            admitOrHold(request, now);
        } catch (RuntimeException e) {
            if (SchemaRegistryException.isOutage(e)) {
                throw e;
            }
            // the exception handler would answer the record's key, which here is the tenant, not the request id
            LOG.error("could not admit request {}; rejecting it", request.getRequestId(), e);
            reject(request, "the router could not check this request's quota (" + e.getClass().getSimpleName() + ")", now);
        }
    }

    private void admitOrHold(InferenceRequest request, long now) {
        ArrayDeque<Waiter> queue = waitingByTenant.get(tenant(request));
        if (queue != null && !queue.isEmpty()) {
            startWaiting(request, "tenant " + tenant(request) + " has " + queue.size() + " earlier requests waiting for its quota",
                    0, now);
            return;
        }
        QuotaDecision decision = quotas.tryAcquire(Conversions.toRouteRequest(request), now);
        switch (decision.outcome()) {
            case ADMIT -> admit(request, now);
            case WAIT -> startWaiting(request, decision.reason(), decision.retryAfterMs(), now);
            case REJECT -> reject(request, decision.reason(), now);
        }
    }

    private void admit(InferenceRequest request, long now) {
        saveQuota(tenant(request), request.getRequestId());
        context.forward(new Record<Object, Object>(request.getRequestId(), request, now, new RecordHeaders()), TopologyNames.ADMITTED_SINK);
    }

    private void startWaiting(InferenceRequest request, String why, long retryAfterMs, long now) {
        String key = new ParkedKey(nextSequence++, now).encode();
        waiting.put(key, request);
        Waiter waiter = new Waiter(key, request, now);
        waiter.retryAtMs = retryAt(waiter, retryAfterMs, now);
        queueOf(request).add(waiter);
        waitingCount++;
        metrics.quotaWaitingChanged(1);
        metrics.throttled(tenant(request), "wait");
        String reason = "over quota: " + why + "; waiting, next check in " + (waiter.retryAtMs - now) + " ms";
        LOG.debug("request {} waits for its quota: {}", request.getRequestId(), reason);
        decide(request, DecisionOutcome.NO_CAPACITY, reason, now);
    }

    /** Answers waiters whose deadline passed or that waited too long, then admits each tenant's due ones in order. */
    private void checkWaiting() {
        long now = context.currentSystemTimeMs();
        Iterator<ArrayDeque<Waiter>> tenants = waitingByTenant.values().iterator();
        while (tenants.hasNext()) {
            ArrayDeque<Waiter> queue = tenants.next();
            Iterator<Waiter> it = queue.iterator();
            while (it.hasNext()) {
                Waiter waiter = it.next();
                InferenceRequest request = waiter.request;
                if (request.getDeadlineMs() != null && request.getDeadlineMs() <= now) {
                    expire(request, now);
                } else if (now - waiter.sinceMs >= maxWaitMs) {
                    reject(request, "tenant " + tenant(request) + " stayed over its quota for " + (now - waiter.sinceMs) + " ms", now);
                } else {
                    continue;
                }
                it.remove();
                forget(waiter);
            }
            while (!queue.isEmpty() && queue.peek().retryAtMs <= now) {
                Waiter head = queue.peek();
                QuotaDecision decision = quotas.tryAcquire(Conversions.toRouteRequest(head.request), now);
                if (decision.outcome() == QuotaDecision.Outcome.WAIT) {
                    head.attempts++;
                    head.retryAtMs = retryAt(head, decision.retryAfterMs(), now);
                    break;
                }
                if (decision.admitted()) {
                    admit(head.request, now);
                } else {
                    reject(head.request, decision.reason(), now);
                }
                queue.poll();
                forget(head);
            }
            if (queue.isEmpty()) {
                tenants.remove();
            }
        }
    }

    /** Not before the quota should have room, nor sooner than the backoff; never after the deadline. */
    private long retryAt(Waiter waiter, long retryAfterMs, long now) {
        long backoff = Math.min(MAX_BACKOFF_MS, checkMs << Math.min(waiter.attempts, 20));
        long at = now + Math.max(retryAfterMs, backoff);
        Long deadline = waiter.request.getDeadlineMs();
        return deadline == null ? at : Math.min(at, deadline);
    }

    private void forget(Waiter waiter) {
        waiting.delete(waiter.key);
        waitingCount--;
        metrics.quotaWaitingChanged(-1);
    }

    private void reject(InferenceRequest request, String why, long now) {
        String id = request.getRequestId();
        String reason = "over quota: " + why;
        metrics.rejected(Rejection.OVER_QUOTA);
        metrics.throttled(tenant(request), "reject");
        LOG.info("rejected request {}: {}", id, reason);
        context.forward(new Record<Object, Object>(id, Conversions.terminal(id, request, ResponseStatus.REJECTED, reason, now), now,
                new RecordHeaders()), TopologyNames.ADMISSION_RESPONSES_SINK);
        decide(request, DecisionOutcome.REJECTED, reason, now);
    }

    private void expire(InferenceRequest request, long now) {
        String id = request.getRequestId();
        String reason = "over quota: deadline " + request.getDeadlineMs() + " passed while waiting for tenant "
                + tenant(request) + "'s quota (now " + now + ")";
        metrics.expired();
        LOG.info("expired request {}: {}", id, reason);
        context.forward(new Record<Object, Object>(id, Conversions.terminal(id, request, ResponseStatus.EXPIRED, reason, now), now,
                new RecordHeaders()), TopologyNames.ADMISSION_RESPONSES_SINK);
        decide(request, DecisionOutcome.NO_CAPACITY, "expired: " + reason, now);
    }

    private void decide(InferenceRequest request, DecisionOutcome outcome, String reason, long now) {
        String id = request.getRequestId();
        RoutingDecision decision = Conversions.refusedDecision(id, request, outcome, policy, 0, reason, now);
        context.forward(new Record<Object, Object>(id, decision, now, new RecordHeaders()), TopologyNames.ADMISSION_DECISIONS_SINK);
    }

    private ArrayDeque<Waiter> queueOf(InferenceRequest request) {
        return waitingByTenant.computeIfAbsent(tenant(request), t -> new ArrayDeque<>());
    }

    /** The request's tenant; a request without one counts as the tenant "". */
    private static String tenant(InferenceRequest request) {
        return Conversions.nullToEmpty(request.getTenant());
    }

    @Override
    public void close() {
        if (check != null) {
            check.cancel();
        }
        metrics.quotaWaitingChanged(-waitingCount);
        waitingCount = 0;
    }

    /** A request waiting for its tenant's quota: its store key, since when, when to check next. */
    private static final class Waiter {
        final String key;
        final InferenceRequest request;
        final long sinceMs;
        long retryAtMs;
        int attempts;

        Waiter(String key, InferenceRequest request, long sinceMs) {
            this.key = key;
            this.request = request;
            this.sinceMs = sinceMs;
        }
    }
}
